#!/bin/bash
# Regenerates the StableHLO goldens of the lowering tests (test/cpp/testdata)
# so that the change can be reviewed with `git diff test/cpp/testdata`.
#
# Usage:
#   scripts/update_goldens.sh                   # bazel run //test:lowering_test
#   scripts/update_goldens.sh path/to/lowering_test   # a binary built by hand
#
# With TORCH_XLA_MLIR_CHECK=<mlir_check> set, every module is also compiled
# by the CPU PJRT plugin and must print OK.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export TORCH_XLA_UPDATE_GOLDENS=1
export TORCH_XLA_TESTDATA="$ROOT/test/cpp/testdata"
mkdir -p "$TORCH_XLA_TESTDATA"

if [ $# -ge 1 ]; then
  "$1" --gtest_filter='GoldenTest.*:LoweringContextTest.*'
else
  # `bazel run` runs outside the test sandbox, so it can write the goldens.
  (cd "$ROOT" && bazel run //test:lowering_test -- \
      --gtest_filter='GoldenTest.*:LoweringContextTest.*')
fi

echo
git -C "$ROOT" status --short -- test/cpp/testdata
echo "Review the changes with: git diff -- test/cpp/testdata"
