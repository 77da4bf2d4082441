#!/usr/bin/env bash
# Runs upstream PyTorch/XLA's own test files for the features we implement
# against this tree's .venv, the way upstream's test/run_tests.sh runs them,
# and prints per-file and total pass counts. Not part of CI (CI has no
# checkout of pytorch/xla); see docs/upstream_compatibility.md.
#
# Usage: scripts/upstream_tests.sh PATH_TO_PYTORCH_XLA [FILE_FILTER]
#   PATH_TO_PYTORCH_XLA  a checkout of github.com/pytorch/xla (its test/ is used)
#   FILE_FILTER          optional: only files whose path contains this text
# Environment: UPSTREAM_TEST_TIMEOUT (seconds per file, default 900),
#   UPSTREAM_CORE_ATEN_TIMEOUT (default 3600), UPSTREAM_TEST_LOGS (folder for
#   the per-file logs; default a temporary folder, printed at the end).
#
# Output: one line per file, `passed/total  file  (failures, errors, skipped)`,
# then the total of the seed feature files, then test_core_aten_ops.py on a
# line of its own (counted separately: it covers ops, not the seed features).
set -uo pipefail

if [ $# -lt 1 ] || [ ! -d "$1/test" ]; then
  echo "usage: $0 PATH_TO_PYTORCH_XLA [FILE_FILTER]  (a checkout with a test/ folder)" >&2
  exit 2
fi
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
UP="$(cd "$1" && pwd)"
FILTER="${2:-}"
PY="$ROOT/.venv/bin/python"
LOGS="${UPSTREAM_TEST_LOGS:-$(mktemp -d /tmp/upstream_tests.XXXXXX)}"
mkdir -p "$LOGS"
# Upstream's tests use absl-py (absltest, parameterized); it is not one of
# our own dependencies, so it is installed here when missing.
if ! "$PY" -c "import absl.testing.parameterized" 2>/dev/null; then
  "$ROOT/.venv/bin/pip" install -q absl-py >&2 ||
    { echo "cannot install absl-py into $ROOT/.venv" >&2; exit 2; }
fi

# file|devices|extra  (devices: CPU_NUM_DEVICES, empty for the default;
# extra=savehlo: XLA_SAVE_TENSORS_FILE/FMT as run_tests.sh sets them)
SEED_FILES=(
  "test/test_placeholder.py||"
  "test/scan/test_scan.py||"
  "test/scan/test_scan_layers.py||"
  "test/test_gradient_accumulation.py||"
  "test/test_input_output_aliases.py||"
  "test/spmd/test_xla_virtual_device.py|4|"
  "test/spmd/test_spmd_lowering_context.py|4|savehlo"
  "test/scan/test_scan_spmd.py|4|"
)
CORE_FILE="test/test_core_aten_ops.py||"

# Runs one file; prints "passed total failures errors skipped".
run_one() {
  local rel="$1" devices="$2" extra="$3" limit="$4"
  local file="$UP/$rel" log="$LOGS/$(echo "$rel" | tr / _).log"
  local env_args=(PJRT_DEVICE=CPU "PYTHONPATH=$UP/test:${PYTHONPATH:-}")
  [ -n "$devices" ] && env_args+=("CPU_NUM_DEVICES=$devices")
  if [ "$extra" = savehlo ]; then
    local save
    save="$(mktemp /tmp/upstream_save_tensors.XXXXXX)"
    rm -f "$save" "$save".*
    env_args+=("XLA_SAVE_TENSORS_FILE=$save" "XLA_SAVE_TENSORS_FMT=hlo")
  fi
  # -v as upstream's CI passes it; absltest files take no -v (absl reads it
  # as its own flag, which needs a value).
  local verbose=(-v)
  grep -q "absltest.main" "$file" && verbose=()
  (cd "$(dirname "$file")" &&
   env "${env_args[@]}" timeout "$limit" "$PY" "$(basename "$file")" \
     "${verbose[@]}") \
    >"$log" 2>&1
  local rc=$?
  [ "$rc" = 124 ] && echo "TIMED OUT after ${limit}s" >>"$log"
  # unittest's closing lines: "Ran N tests", then "OK (skipped=s)" or
  # "FAILED (failures=f, errors=e, skipped=s)". A file that crashed or timed
  # out before them counts the "... ok" lines it printed.
  "$PY" - "$log" <<'EOF'
import re, sys
text = open(sys.argv[1], errors="replace").read()
def count(word):
  m = re.search(r"^(?:OK|FAILED) \(.*\b%s=(\d+)" % word, text, re.M)
  return int(m.group(1)) if m else 0
ran = re.search(r"^Ran (\d+) tests?", text, re.M)
if ran:
  total = int(ran.group(1))
  failed = count("failures") + count("unexpected_successes")
  errors, skipped = count("errors"), count("skipped")
  passed = total - failed - errors - skipped
else:
  passed = len(re.findall(r" \.\.\. ok$", text, re.M))
  total, failed, skipped = passed, 0, 0
  errors = 1
print(passed, total, failed, errors, skipped)
EOF
}

report() {
  local spec="$1" limit="$2" rel devices extra
  IFS='|' read -r rel devices extra <<<"$spec"
  if [ ! -f "$UP/$rel" ]; then
    printf '%7s  %s  (missing)\n' "-" "$rel"
    return
  fi
  read -r passed total failed errors skipped < <(run_one "$rel" "$devices" \
    "$extra" "$limit")
  printf '%3d/%-3d  %s  (failures %d, errors %d, skipped %d)\n' \
    "$passed" "$total" "$rel" "$failed" "$errors" "$skipped"
  LAST_PASSED=$passed
  LAST_TOTAL=$total
}

sum_passed=0
sum_total=0
for spec in "${SEED_FILES[@]}"; do
  [ -n "$FILTER" ] && [[ "$spec" != *"$FILTER"* ]] && continue
  LAST_PASSED=0 LAST_TOTAL=0
  report "$spec" "${UPSTREAM_TEST_TIMEOUT:-900}"
  sum_passed=$((sum_passed + LAST_PASSED))
  sum_total=$((sum_total + LAST_TOTAL))
done
printf '%3d/%-3d  TOTAL (seed feature files)\n' "$sum_passed" "$sum_total"
if [ -z "$FILTER" ] || [[ "$CORE_FILE" == *"$FILTER"* ]]; then
  LAST_PASSED=0 LAST_TOTAL=0
  report "$CORE_FILE" "${UPSTREAM_CORE_ATEN_TIMEOUT:-3600}"
  printf '%3d/%-3d  core ATen ops (counted separately)\n' "$LAST_PASSED" \
    "$LAST_TOTAL"
fi
echo "logs: $LOGS"
