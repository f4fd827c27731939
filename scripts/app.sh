#!/usr/bin/env bash
# Install the app's runtime into .venv/ (no torch) and start the Streamlit app.
#   bash scripts/app.sh          this computer only (http://127.0.0.1:8501), settings in .streamlit/config.toml
#   bash scripts/app.sh --lan    the phones on your network too: HTTPS, an access code, a QR code to scan
# Further arguments go to `streamlit run` (e.g. --server.port 8600).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x .venv/bin/python ] || python3 -m venv .venv
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e .
if [ "${1:-}" = "--lan" ]; then
    shift
    exec .venv/bin/python -m appui.lan serve "$@"
fi
exec .venv/bin/streamlit run app.py "$@"
