#!/usr/bin/env bash
# Start the Streamlit app, installing its runtime into .venv/ (no torch) only when needed.
#   bash scripts/app.sh               this computer only (http://127.0.0.1:8501), settings in .streamlit/config.toml
#   bash scripts/app.sh --lan         the phones on your network too: HTTPS, an access code, a QR code to scan
#   bash scripts/app.sh --port 8611   another port (also --server.port 8611): server, printed URL and QR code agree
#   bash scripts/app.sh --train       with the training extra (torch), for the Label page's "Teach the model"
# MCR_DATABASE_URL=postgresql://... adds the postgres extra.  Further arguments go to `streamlit run`.
#
# The install runs on the first start and again only when pyproject.toml changed (a stamp per part in
# the venv holds pyproject.toml's hash); every other start asks the package index for nothing, so the
# app starts with no network.  MCR_VENV names another venv folder (default .venv).
set -euo pipefail
cd "$(dirname "$0")/.."
venv="${MCR_VENV:-.venv}"
py="$venv/bin/python"

lan=0
port=""
parts=(app)
passed=()
while [ $# -gt 0 ]; do
    case "$1" in
        --lan) lan=1 ;;
        --train) parts+=(train) ;;
        --port|--server.port)
            [ $# -ge 2 ] || { echo "$1 needs a port number" >&2; exit 2; }
            port="$2"; shift ;;
        --port=*|--server.port=*) port="${1#*=}" ;;
        *) passed+=("$1") ;;
    esac
    shift
done
if [ -n "$port" ] && ! [[ "$port" =~ ^[0-9]+$ && "$port" -ge 1 && "$port" -le 65535 ]]; then
    echo "not a port number: $port (1 to 65535)" >&2
    exit 2
fi
case "${MCR_DATABASE_URL:-}" in
    postgres://*|postgresql://*|postgresql+*) parts+=(postgres) ;;
esac

fresh=0
if [ ! -x "$py" ]; then
    python3 -m venv "$venv"
    fresh=1
fi
wanted="$("$py" -c 'import hashlib, sys; print(hashlib.sha256(open(sys.argv[1], "rb").read()).hexdigest())' pyproject.toml)"
missing=()
for part in "${parts[@]}"; do
    [ "$(cat "$venv/.mcr-installed-$part" 2>/dev/null)" = "$wanted" ] || missing+=("$part")
done
if [ ${#missing[@]} -gt 0 ]; then
    extras=""
    for part in "${parts[@]}"; do
        [ "$part" = app ] || extras="${extras:+$extras,}$part"
    done
    target="."
    [ -z "$extras" ] || target=".[$extras]"
    echo "Installing the app's packages ($target): once, and again only after pyproject.toml changes." >&2
    if { [ "$fresh" = 0 ] || "$py" -m pip install -q --upgrade pip; } && "$py" -m pip install -q -e "$target"; then
        for part in "${parts[@]}"; do
            printf '%s\n' "$wanted" > "$venv/.mcr-installed-$part.tmp"
            mv "$venv/.mcr-installed-$part.tmp" "$venv/.mcr-installed-$part"
        done
    elif [ -e "$venv/.mcr-installed-app" ]; then
        echo "The install did not finish (no network?): starting with the packages installed before." >&2
        echo "Start again with the network to finish it (${missing[*]})." >&2
    else
        echo "The app's packages could not be installed: the first start needs the package index (pip)." >&2
        exit 1
    fi
fi

if [ "$lan" = 1 ]; then
    exec "$py" -m appui.lan serve ${port:+--port "$port"} ${passed[@]+"${passed[@]}"}
fi
exec "$py" -m streamlit run app.py ${port:+--server.port "$port"} ${passed[@]+"${passed[@]}"}
