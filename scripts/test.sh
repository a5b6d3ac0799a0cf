#!/usr/bin/env bash
# The whole test suite: README's test command, and what CI runs (.ci/run).
# Installs what is missing first (pinned, idempotent), then builds once and tests once.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

step() { printf '\n==> %s\n' "$*"; }

step "toolchain (wasm32 target, wasm-bindgen-cli, wasm-pack)"
scripts/setup-toolchain.sh
step "browser (chromium, playwright-core)"
scripts/setup-browser.sh
step "sshd, Slurm and munge (for the --launcher tests)"
scripts/setup-launchers.sh
step "npm packages"
(cd host-node && npm ci --no-audit --no-fund --silent)
(cd web-demo && npm ci --no-audit --no-fund --silent)

step "format and lints"
cargo fmt --all --check
cargo clippy --workspace --all-targets -- -D warnings
cargo clippy -p autodd-core -p autodd-wasm --target wasm32-unknown-unknown -- -D warnings

step "Rust tests"
cargo test --workspace

step "parser and printer round trip over each interpreter's standard library"
python3 tests/roundtrip_stdlib.py
# Reductions print literals as the program writes them: that printing too.
python3 tests/roundtrip_stdlib.py --as-written --bin target/release/examples/roundtrip
# The pyenv interpreters beside it (3.12 and 3.13 on CI's machines), with the binary
# just built: each reads its own library and compares with its own `ast`.
for py in "${PYENV_ROOT:-$HOME/.pyenv}"/versions/3.1[2-9]*/bin/python3; do
  if [ -x "$py" ]; then
    "$py" tests/roundtrip_stdlib.py --bin target/release/examples/roundtrip
    "$py" tests/roundtrip_stdlib.py --as-written --bin target/release/examples/roundtrip
  fi
done

step "wasm packages"
scripts/build-wasm.sh all

step "JS types and format (host-node, web-demo, browser tests)"
(cd host-node && npm run --silent lint)
host-node/node_modules/.bin/tsc -p web-demo
host-node/node_modules/.bin/prettier --check web-demo tests/browser

step "web-demo: page logic"
(cd web-demo && node --test test/)

step "web-demo: bundle (esbuild) into web-demo/dist"
(cd web-demo && node build.mjs)

step "web-demo: real browser, on the bundle"
(cd tests/browser && AUTODD_DEMO_DIR=web-demo/dist node --test demo.test.mjs)

step "autodd CLI and JS API against python3"
(cd host-node && node --test --test-concurrency=1 test/*.test.js)
