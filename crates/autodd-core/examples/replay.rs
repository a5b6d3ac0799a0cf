//! Profiling aid (not a test): replays the verdicts of a recorded run through the
//! engine alone, so the engine's own time can be measured and profiled natively.
//!
//!     autodd SOURCE --err-msg MSG -o OUT -j 1 --no-lookahead --trace run.jsonl
//!     cargo run --release -p autodd-core --example replay -- SOURCE run.jsonl [REPEAT]
//!
//! The engine is deterministic, so when the host proposed one candidate at a time
//! (`-j 1 --no-lookahead`: no proposal went stale), candidate `id` here is the
//! candidate `id` of the trace. Prints candidates, accepts and engine time per candidate.

use std::collections::HashMap;
use std::time::Instant;

use autodd_core::{Options, Reducer};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(file), Some(trace)) = (args.first(), args.get(1)) else {
        eprintln!("usage: replay SOURCE TRACE.jsonl [REPEAT]");
        std::process::exit(2);
    };
    let repeat: u32 = args.get(2).and_then(|r| r.parse().ok()).unwrap_or(1);
    let read = |path: &str| {
        std::fs::read_to_string(path).unwrap_or_else(|e| {
            eprintln!("replay: {path}: {e}");
            std::process::exit(2);
        })
    };
    let source = read(file);
    let verdicts: HashMap<u64, bool> = read(trace).lines().filter_map(verdict).collect();
    let started = Instant::now();
    let (mut proposed, mut missing, mut accepted) = (0u64, 0u64, 0u64);
    for _ in 0..repeat {
        let mut reducer = Reducer::new(&source, Options::default()).unwrap_or_else(|e| {
            eprintln!("replay: {file}: {e}");
            std::process::exit(2);
        });
        while let Some(c) = reducer.next_candidate() {
            let found = verdicts.get(&c.id).copied().unwrap_or_else(|| {
                missing += 1;
                false
            });
            reducer.report(c.id, found);
            proposed += 1;
        }
        accepted += reducer.stats().accepted;
    }
    let secs = started.elapsed().as_secs_f64();
    println!(
        "{proposed} candidates, {accepted} accepted, {missing} not in the trace; \
         {secs:.3} s, {:.3} ms per candidate",
        secs * 1000.0 / proposed.max(1) as f64
    );
}

/// `(id, found)` of one trace line, found by plain text search (no JSON crate).
fn verdict(line: &str) -> Option<(u64, bool)> {
    let field = |name: &str| {
        let start = line.find(&format!("\"{name}\":"))? + name.len() + 3;
        let rest = &line[start..];
        let end = rest.find([',', '}'])?;
        Some(rest[..end].trim().to_string())
    };
    Some((field("id")?.parse().ok()?, field("found")? == "true"))
}
