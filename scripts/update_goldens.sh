#!/bin/bash
# Regenerates the StableHLO goldens of the C++ tests (test/cpp/testdata)
# so that the change can be reviewed with `git diff test/cpp/testdata`.
#
# Usage:
#   scripts/update_goldens.sh
#
# With TORCH_XLA_MLIR_CHECK=<mlir_check> set, every module is also compiled
# by the CPU PJRT plugin and must print OK.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
export TORCH_XLA_UPDATE_GOLDENS=1
export TORCH_XLA_TESTDATA="$ROOT/test/cpp/testdata"
mkdir -p "$TORCH_XLA_TESTDATA"

# target:gtest filter of every test that compares with a golden.
GOLDEN_TESTS=(
  "lowering_golden_test:GoldenTest.*"
  "lowering_context_test:LoweringContextTest.*"
  "placeholder_test:PlaceholderTest.MatmulChain*"
  "loop_staging_test:LoopStagingTest.WhileFromPlaceholder*:LoopStagingTest.AccumulationWhile*"
  "spmd_test:SpmdLoweringTest.*"
)
# `bazel run` runs outside the test sandbox, so it can write the goldens.
for entry in "${GOLDEN_TESTS[@]}"; do
  (cd "$ROOT" && bazel run "//test:${entry%%:*}" -- \
      --gtest_filter="${entry#*:}")
done

echo
git -C "$ROOT" status --short -- test/cpp/testdata
echo "Review the changes with: git diff -- test/cpp/testdata"
