#!/usr/bin/env bash
# Installs what the project needs and builds it; safe to run again.
#  - Debian packages: Bazel 4 (bazel-bootstrap), rules_java, Abseil, googletest
#  - .venv with the pinned requirements (torch 2.13.0 CPU, xla-cpu-pjrt, ...)
#    and, without their dependencies, requirements-nodeps.txt (the CPU plugin)
#  - torch_xla installed in .venv in editable mode (Bazel builds _XLAC)
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(bazel-bootstrap bazel-rules-java libabsl-dev libgtest-dev g++ python3-venv)

missing=()
for package in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" \
    || missing+=("$package")
done
if ((${#missing[@]})); then
  echo "setup: installing Debian packages: ${missing[*]}"
  SUDO=""
  if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
fi

PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv"
  "$PYTHON" -m venv .venv
fi
# Reinstall only when requirements.txt changed since the last install.
stamp=.venv/.requirements.sha256
want=$(cat requirements.txt requirements-nodeps.txt | sha256sum | cut -d' ' -f1)
if [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
  echo "setup: installing Python requirements"
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -r requirements.txt
  .venv/bin/python -m pip install -q --no-deps -r requirements-nodeps.txt
  echo "$want" >"$stamp"
fi

# Bazel rebuilds only what changed; the editable install copies _XLAC.so
# into torch_xla/.
if ! .venv/bin/python -c "import torch_xla" 2>/dev/null \
    || ! .venv/bin/python -m pip show -q torch_xla >/dev/null 2>&1; then
  echo "setup: installing torch_xla (editable)"
  .venv/bin/python -m pip install -q --no-build-isolation --no-deps -e .
else
  .venv/bin/python setup.py -q build_ext --inplace >/dev/null
fi
