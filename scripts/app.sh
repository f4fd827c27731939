#!/usr/bin/env bash
# Install the app's runtime into .venv/ (no torch) and start the Streamlit app.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e .
exec .venv/bin/streamlit run app.py "$@"
