#!/usr/bin/env bash
# Installs what the browser test needs: Debian's chromium at /usr/bin/chromium and the
# pinned playwright-core of tests/browser (package-lock.json). Idempotent: does nothing
# when both are already there. Playwright's own browser download is not used; the
# test drives the system chromium.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"

if [[ ! -x /usr/bin/chromium ]]; then
  sudo=""
  [[ "$(id -u)" == 0 ]] || sudo="sudo"
  echo "setup-browser: installing chromium"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq chromium >/dev/null
else
  echo "setup-browser: /usr/bin/chromium is present"
fi

if [[ ! -d "$root/tests/browser/node_modules" ]]; then
  echo "setup-browser: npm ci in tests/browser"
  (cd "$root/tests/browser" && npm ci --no-audit --no-fund)
else
  echo "setup-browser: tests/browser/node_modules is present"
fi
