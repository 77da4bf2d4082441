#!/usr/bin/env bash
# Builds the torch_xla wheel, installs it into a fresh venv (no Debian Python
# packages, no .venv) and checks that it stands alone:
#  - every Abseil library _XLAC.so loads resolves inside the wheel (ldd);
#  - tensors, three training steps and a metric work with LD_LIBRARY_PATH
#    and PYTHONPATH unset, run outside the source tree.
# The venv gets torch==2.13.0 (the local CPU wheel) first, so the wheel's
# torch==2.13.* requirement never downloads another torch.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=$root/build/wheel_smoke
rm -rf "$work"
mkdir -p "$work/dist"

echo "wheel smoke test: building the wheel"
.venv/bin/python -m pip wheel -q --no-build-isolation --no-deps -w "$work/dist" . >/dev/null
wheel=$(ls "$work"/dist/torch_xla-*.whl)

echo "wheel smoke test: installing $(basename "$wheel") into a fresh venv"
python3 -m venv "$work/venv"
"$work/venv/bin/python" -m pip install -q torch==2.13.0
"$work/venv/bin/python" -m pip install -q "$wheel"

site=$("$work/venv/bin/python" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
extension=$(ls "$site"/torch_xla/_XLAC*.so)
absl=$(env -u LD_LIBRARY_PATH ldd "$extension" | grep libabsl_ || true)
if [ -z "$absl" ]; then
  echo "wheel smoke test: ldd lists no Abseil library for $extension" >&2
  exit 1
fi
outside=$(grep -v "=> $site/torch_xla/lib/" <<<"$absl" || true)
if [ -n "$outside" ]; then
  echo "wheel smoke test: Abseil libraries resolved outside the wheel:" >&2
  echo "$outside" >&2
  exit 1
fi
if env -u LD_LIBRARY_PATH ldd "$extension" | grep -q "not found"; then
  env -u LD_LIBRARY_PATH ldd "$extension" | grep "not found" >&2
  exit 1
fi
echo "wheel smoke test: ldd: $(wc -l <<<"$absl") Abseil libraries, all in $site/torch_xla/lib"

cd "$work"  # not the source tree: import the installed package
env -u LD_LIBRARY_PATH -u PYTHONPATH -u TORCH_XLA_PLUGIN_SEARCH_PATH \
  -u PJRT_PLUGIN_LIBRARY_PATH \
  "$work/venv/bin/python" "$root/scripts/wheel_smoke_test.py"
