#!/usr/bin/env bash
# Set up a fresh environment, lint, and run the whole test suite (real CST data from ../shared/data).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh --test
.venv/bin/ruff check src tests bench eval
.venv/bin/python -m pytest "$@"
