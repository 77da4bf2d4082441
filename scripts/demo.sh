#!/usr/bin/env bash
# Runs the main demo. Installs whatever is missing first (scripts/setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
.venv/bin/python examples/demo.py "$@"
