#!/usr/bin/env bash
# Benchmark of the engine alone (no Python runs): candidates proposed per second on
# programs of about 200 to 500 lines. Writes bench/results/engine.md.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
stdlib="$(python3 -c 'import sysconfig; print(sysconfig.get_paths()["stdlib"])')"
cargo build --quiet --release -p autodd-core --example bench_engine
mkdir -p bench/results
{
  echo "# Engine speed"
  echo
  echo "\`bench/engine.sh\` on $(nproc) cores ($(uname -m)), $(date -u +%Y-%m-%d)."
  echo "Pseudo-random verdicts (1 in 8 interesting), at most 5,000 candidates per file."
  echo
  target/release/examples/bench_engine \
    crates/autodd-core/tests/fixtures/kernel.py \
    examples/autodd/tile_kernel_bug.py \
    "$stdlib/textwrap.py" "$stdlib/shlex.py" "$stdlib/queue.py"
} | tee bench/results/engine.md
