#!/usr/bin/env bash
# Installs the pinned tools that build the wasm package. Idempotent: each step
# is skipped when the right version is already present.
set -euo pipefail

WASM_BINDGEN_VERSION="0.2.130"   # must equal the `=` pin in Cargo.toml
WASM_PACK_VERSION="0.15.1"

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  rustup target add wasm32-unknown-unknown
fi

if ! command -v wasm-bindgen >/dev/null 2>&1 ||
   [[ "$(wasm-bindgen --version)" != "wasm-bindgen $WASM_BINDGEN_VERSION" ]]; then
  # The crate's lock file can name a dependency version the registry no longer
  # serves; fall back to resolving afresh within the same pinned CLI version.
  cargo install --locked --version "$WASM_BINDGEN_VERSION" wasm-bindgen-cli ||
    cargo install --version "$WASM_BINDGEN_VERSION" wasm-bindgen-cli
fi

if ! command -v wasm-pack >/dev/null 2>&1 ||
   [[ "$(wasm-pack --version)" != "wasm-pack $WASM_PACK_VERSION" ]]; then
  cargo install --locked --version "$WASM_PACK_VERSION" wasm-pack ||
    cargo install --version "$WASM_PACK_VERSION" wasm-pack
fi
