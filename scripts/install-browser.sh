#!/usr/bin/env bash
# Install headless Chromium (Debian package `chromium`), which the HTML report
# test (tests/report_browser.rs) loads the report in. Idempotent; Debian 12.
set -euo pipefail

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

if ! dpkg-query -W -f='${Status}' chromium 2>/dev/null | grep -q "install ok installed"; then
  echo "install-browser: installing chromium"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
fi
command -v chromium >/dev/null 2>&1 || { echo "install-browser: chromium not on PATH after install" >&2; exit 1; }
echo "install-browser: ok ($(chromium --version 2>/dev/null || echo chromium))"
