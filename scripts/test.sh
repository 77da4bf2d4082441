#!/usr/bin/env bash
# Runs every test: C++ (gtest through Bazel), Python (pytest), then the
# wheel smoke test (scripts/wheel_smoke_test.sh: the built wheel in a fresh
# venv; WHEEL_SMOKE_TEST=0 skips it when iterating locally).
# Installs whatever is missing first (scripts/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
bazel test //test/...
.venv/bin/python -m pytest -q test/python "$@"
if [ "${WHEEL_SMOKE_TEST:-1}" != 0 ]; then
  scripts/wheel_smoke_test.sh
fi
