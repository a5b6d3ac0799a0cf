#!/usr/bin/env bash
# Serves the in-browser playground on localhost, building the wasm `web` target first
# when it is missing or stale.
#   scripts/serve-demo.sh [--port 8080]     (--port 0 picks a free port)
# Prints the address to open: http://127.0.0.1:PORT/
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
"$root/scripts/build-wasm.sh" web >&2
exec node "$root/web-demo/serve.mjs" "$@"
