#!/usr/bin/env bash
# Install Debian's Chromium (and a CJK font, so Chinese tile names render) for the browser tests.
# The tests drive it with Playwright at /usr/bin/chromium and skip, with a reason, when it is absent.
set -euo pipefail
if [ -x /usr/bin/chromium ] && fc-list 2>/dev/null | grep -qi "wqy\|noto sans cjk"; then
    echo "chromium and a CJK font are already installed"
    exit 0
fi
SUDO=""
if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends chromium fonts-wqy-zenhei >/dev/null
/usr/bin/chromium --version
