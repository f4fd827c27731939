#!/usr/bin/env bash
# Install everything the tests need into .venv/ (dev + train extras, PostgreSQL, a headless Chromium),
# then lint (ruff), type-check (mypy) and run pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --no-cache-dir --upgrade pip
.venv/bin/python -m pip install -q --no-cache-dir -e '.[dev]'
# The train extra (torch and ultralytics; with PyPI's CUDA build of torch about 5 GB) serves the training
# and export tests only. Where it cannot install (a CI disk filled up), those tests skip with their reason
# instead of the whole run failing; a half install is removed so that nothing imports a broken torch.
.venv/bin/python -m pip install -q --no-cache-dir -e '.[dev,train]' || {
    echo "the train extra did not install: the training and export tests will be skipped" >&2
    .venv/bin/python -m pip uninstall -y -q torch torchvision ultralytics >/dev/null 2>&1 || true
    # pip may have removed packages it meant to upgrade before the disk ran out: put the dev set back whole.
    .venv/bin/python -m pip install -q --no-cache-dir -e '.[dev]'
}
# ultralytics' dataset check wants a TTF font on disk even with plots off.
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || { apt-get update -qq && apt-get install -y -qq fonts-dejavu-core; } || echo "font install failed"
# the ledger's storage tests start a throwaway PostgreSQL server with Debian's initdb/pg_ctl.
ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq postgresql; } || echo "postgresql install failed: the PostgreSQL storage tests will be skipped"
if [ -f scripts/install_browser.sh ]; then bash scripts/install_browser.sh || echo "browser install failed: browser tests will be skipped"; fi
.venv/bin/ruff check --quiet .
.venv/bin/mypy --no-error-summary
exec .venv/bin/python -m pytest "$@"
