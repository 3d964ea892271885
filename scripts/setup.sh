#!/usr/bin/env bash
# Create .venv and install gantha with its pinned dependencies (and the test tools with --test).
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
if [ "${1:-}" = "--test" ]; then
  .venv/bin/python -m pip install --quiet -e '.[test,local-llm]'
else
  .venv/bin/python -m pip install --quiet -e .
fi
