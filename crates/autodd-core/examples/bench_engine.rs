//! Benchmark (not a test): how fast the engine proposes candidates, natively.
//!
//!     cargo run --release -p autodd-core --example bench_engine -- FILE...
//!
//! Drives two reductions of each file, for at most 5,000 candidates each, and prints
//! candidates proposed per second. Only the engine runs: no Python, no I/O.
//! - `text`: interesting while the candidate still contains one statement of the
//!   program (a line two thirds down the normalized text): a long, realistic run.
//! - `random`: pseudo-random verdicts, one candidate in eight interesting.

use std::time::Instant;

use autodd_core::{Options, Reducer};

const MAX_CANDIDATES: u64 = 5_000;

fn main() {
    let files: Vec<String> = std::env::args().skip(1).collect();
    if files.is_empty() {
        eprintln!("usage: bench_engine FILE...");
        std::process::exit(2);
    }
    println!("| file | lines | oracle | candidates | accepted | seconds | candidates/s |");
    println!("| --- | ---: | --- | ---: | ---: | ---: | ---: |");
    for file in files {
        let source = match std::fs::read_to_string(&file) {
            Ok(s) => s,
            Err(e) => {
                eprintln!("bench_engine: {file}: {e}");
                std::process::exit(2);
            }
        };
        let name = std::path::Path::new(&file)
            .file_name()
            .map_or(file.clone(), |n| n.to_string_lossy().into());
        for oracle in ["text", "random"] {
            let (n, accepted, secs) = run(&file, &source, oracle);
            println!(
                "| {name} | {} | {oracle} | {n} | {accepted} | {secs:.3} | {:.0} |",
                source.lines().count(),
                n as f64 / secs
            );
        }
    }
}

/// One reduction; returns candidates proposed, accepted, and seconds.
fn run(file: &str, source: &str, oracle: &str) -> (u64, u64, f64) {
    let started = Instant::now();
    let mut reducer = match Reducer::new(source, Options::default()) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("bench_engine: {file}: {e}");
            std::process::exit(2);
        }
    };
    let lines: Vec<&str> = reducer.best().lines().collect();
    let key = lines[lines.len() * 2 / 3].trim().to_string();
    let mut state: u64 = 0x2545_F491_4F6C_DD1D;
    let mut n = 0;
    while let Some(c) = reducer.next_candidate() {
        let verdict = if oracle == "text" {
            c.source.contains(&key)
        } else {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state.is_multiple_of(8)
        };
        reducer.report(c.id, verdict);
        n += 1;
        if n >= MAX_CANDIDATES {
            break;
        }
    }
    (n, reducer.stats().accepted, started.elapsed().as_secs_f64())
}
