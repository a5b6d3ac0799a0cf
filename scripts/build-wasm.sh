#!/usr/bin/env bash
# Builds the wasm package of crates/autodd-wasm with the pinned wasm-pack:
#   nodejs -> host-node/pkg/   (used by the CLI and the JS API)
#   web    -> web-demo/pkg/    (used by the browser demo)
# Usage: scripts/build-wasm.sh [nodejs|web|all]   (default: all)
# Idempotent: a target whose output is newer than every input (crates/**/*.rs,
# the Cargo.toml files, Cargo.lock) is not rebuilt. Set AUTODD_FORCE_BUILD=1 to rebuild.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"

which_target="${1:-all}"
case "$which_target" in
  nodejs | web | all) ;;
  *)
    echo "usage: scripts/build-wasm.sh [nodejs|web|all]" >&2
    exit 2
    ;;
esac

# A target dir of its own: a wasm build never waits on (or invalidates) a native one.
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$root/target/wasm}"

# Is $1 (a build output) newer than every input?
up_to_date() {
  local stamp="$1"
  [[ -f "$stamp" ]] || return 1
  [[ "${AUTODD_FORCE_BUILD:-0}" != 1 ]] || return 1
  local newer
  newer="$(find crates \( -name '*.rs' -o -name Cargo.toml \) -newer "$stamp" -print -quit)"
  [[ -z "$newer" ]] || return 1
  [[ ! Cargo.toml -nt "$stamp" && ! Cargo.lock -nt "$stamp" ]]
}

build() {
  local target="$1" out="$2"
  if up_to_date "$out/autodd_wasm_bg.wasm"; then
    [[ "${AUTODD_BUILD_QUIET:-0}" == 1 ]] || echo "build-wasm: $out is up to date"
    return
  fi
  echo "build-wasm: building $target into $out"
  wasm-pack --quiet build crates/autodd-wasm --release --target "$target" \
    --out-dir "$root/$out" --out-name autodd_wasm
  # wasm-pack writes a .gitignore of `*` into the package, which npm also obeys: the
  # engine would be left out of `npm pack`. The repository's .gitignore covers it.
  rm -f "$root/$out/.gitignore"
}

scripts/setup-toolchain.sh

if [[ "$which_target" == nodejs || "$which_target" == all ]]; then
  build nodejs host-node/pkg
fi
if [[ "$which_target" == web || "$which_target" == all ]]; then
  build web web-demo/pkg
fi
