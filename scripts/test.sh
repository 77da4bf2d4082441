#!/usr/bin/env bash
# Runs every test: C++ (gtest through Bazel), then Python (pytest).
# Installs whatever is missing first (scripts/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
bazel test //test/...
.venv/bin/python -m pytest -q test/python "$@"
