#!/usr/bin/env bash
# Install everything the tests need into .venv/ (dev + train extras, PostgreSQL, a headless Chromium),
# then lint (ruff), type-check (mypy) and run pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e '.[dev,train]'
# ultralytics' dataset check wants a TTF font on disk even with plots off.
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || { apt-get update -qq && apt-get install -y -qq fonts-dejavu-core; } || echo "font install failed"
# the ledger's storage tests start a throwaway PostgreSQL server with Debian's initdb/pg_ctl.
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq postgresql; } || echo "postgresql install failed: the PostgreSQL storage tests will be skipped"
if [ -f scripts/install_browser.sh ]; then bash scripts/install_browser.sh || echo "browser install failed: browser tests will be skipped"; fi
.venv/bin/ruff check --quiet .
.venv/bin/mypy --no-error-summary
exec .venv/bin/python -m pytest "$@"
