//! A native driver for trying the engine without the Node host:
//!
//!     cargo run --release -p autodd-core --example reduce -- FILE MSG [--text]
//!
//! Runs each candidate with `python3` (`$PYTHON`), for at most 10 seconds, and keeps
//! those whose output contains MSG (with `--text`, those whose source contains MSG: no
//! Python at all). Prints every accepted step and the final program. Not the product:
//! that is `autodd` (host-node).

use std::path::Path;
use std::process::Command;
use std::time::{Duration, Instant};

use autodd_core::{Options, Reducer};

/// How long one candidate may run; one that loops is then not interesting.
const LIMIT: Duration = Duration::from_secs(10);

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(file), Some(msg)) = (args.first(), args.get(1)) else {
        eprintln!("usage: reduce FILE MSG [--text]");
        std::process::exit(2);
    };
    let textual = args.iter().any(|a| a == "--text");
    let source = match std::fs::read_to_string(file) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("reduce: {file}: {e}");
            std::process::exit(2);
        }
    };
    let mut reducer = match Reducer::new(&source, Options::default()) {
        Ok(r) => r,
        Err(e) => {
            eprintln!("reduce: {file}: {e}");
            std::process::exit(2);
        }
    };
    let tmp = std::env::temp_dir().join(format!("autodd-reduce-{}.py", std::process::id()));
    let started = Instant::now();
    let mut python_time = 0.0;
    while let Some(c) = reducer.next_candidate() {
        let interesting = if textual {
            c.source.contains(msg.as_str())
        } else {
            let t = Instant::now();
            std::fs::write(&tmp, &c.source).expect("write temp file");
            let output = run_python(&tmp);
            python_time += t.elapsed().as_secs_f64();
            output.is_some_and(|out| out.contains(msg.as_str()))
        };
        if interesting {
            eprintln!(
                "#{:<5} {:<12} {:>6} bytes  {}",
                c.id,
                c.phase,
                c.source.len(),
                c.rewrites.join(",")
            );
        }
        reducer.report(c.id, interesting);
    }
    let _ = std::fs::remove_file(&tmp);
    let _ = std::fs::remove_file(tmp.with_extension("out"));
    let elapsed = started.elapsed().as_secs_f64();
    let s = reducer.stats();
    print!("{}", reducer.best());
    eprintln!(
        "{} → {} bytes, {} → {} lines; {} candidates ({} accepted, {} cache hits, {} skipped), \
         {} rounds; {:.2}s ({:.2}s in python)",
        s.original_bytes,
        s.best_bytes,
        s.original_lines,
        s.best_lines,
        s.proposed,
        s.accepted,
        s.cache_hits,
        s.skipped,
        s.round,
        elapsed,
        python_time
    );
}

/// Runs `$PYTHON` (default `python3`) on `path`, its stdout and stderr into one file
/// beside it (not memory: a candidate may print in a loop); the output, or `None` when
/// it ran past [`LIMIT`] and was killed.
fn run_python(path: &Path) -> Option<String> {
    let out_path = path.with_extension("out");
    let out = std::fs::File::create(&out_path).expect("create output file");
    let err = out.try_clone().expect("clone output file");
    let mut child = Command::new(std::env::var("PYTHON").unwrap_or_else(|_| "python3".into()))
        .arg(path)
        .stdin(std::process::Stdio::null())
        .stdout(out)
        .stderr(err)
        .spawn()
        .expect("python3");
    let deadline = Instant::now() + LIMIT;
    while child.try_wait().expect("wait for python3").is_none() {
        if Instant::now() >= deadline {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    let bytes = std::fs::read(&out_path).expect("read output file");
    Some(String::from_utf8_lossy(&bytes).into_owned())
}
