//! Parses Python files and prints them back with the printer, for checking that
//! printing is faithful (see `tests/roundtrip_stdlib.py`).
//!
//! `roundtrip FILE...` writes the printed program of each file to stdout (with a
//! `# ==> FILE` header line before each when there are several).
//! `roundtrip --out DIR FILE...` writes each result into DIR, naming it after the
//! input path with `/` replaced by `__` so files with the same basename do not
//! collide, and prints one tab-separated line per file: `INPUT\tOUTPUT` or
//! `INPUT\tERROR message`. A file that does not parse, is not UTF-8, or (a bug) makes
//! the parser or printer panic is reported, never a crash.
//! `roundtrip --bench FILE...` parses the files once, prints them all repeatedly for
//! about a second and reports the printing speed.
//! `--as-written` prints literals as each file writes them, as autodd's reductions do
//! (`autodd_core::unparse::Written`); without it, the printer's own way.

use std::collections::HashSet;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use autodd_core::parse::parse_module;
use autodd_core::unparse::{unparse_module, unparse_module_written, Written};

/// Parses and prints one source. A panic inside the parser or printer becomes an
/// error so that one bad file does not stop a batch.
fn roundtrip(source: &str, as_written: bool) -> Result<String, String> {
    let parsed = std::panic::catch_unwind(|| parse_module(source))
        .map_err(|_| "panic in parser".to_owned())?;
    let mut body = parsed.map_err(|e| e.to_string().replace(['\t', '\n'], " "))?;
    std::panic::catch_unwind(move || {
        if as_written {
            let written = Written::of(source, &mut body);
            unparse_module_written(&body, &written)
        } else {
            unparse_module(&body)
        }
    })
    .map_err(|_| "panic in printer".to_owned())
}

fn read_and_print(path: &Path, as_written: bool) -> Result<String, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("cannot read: {e}"))?;
    let source = String::from_utf8(bytes).map_err(|_| "not UTF-8".to_owned())?;
    roundtrip(&source, as_written)
}

/// The output file name for an input path: the path with separators turned into
/// `__` (leading `/` and `./` dropped, `..` spelled `up`), made unique within the run.
fn output_name(input: &str, used: &mut HashSet<String>) -> String {
    let mut parts = Vec::new();
    for part in input.split(['/', '\\']) {
        match part {
            "" | "." => {}
            ".." => parts.push("up"),
            p => parts.push(p),
        }
    }
    let base = if parts.is_empty() {
        "input".to_owned()
    } else {
        parts.join("__")
    };
    let mut name = base.clone();
    let mut n = 2;
    while !used.insert(name.clone()) {
        name = format!("{base}.{n}");
        n += 1;
    }
    name
}

/// Measures printing alone, on the files that parse.
fn bench(files: &[String]) -> Result<bool, String> {
    let mut modules = Vec::new();
    for file in files {
        let source = std::fs::read_to_string(file).unwrap_or_default();
        if let Ok(body) = parse_module(&source) {
            modules.push(body);
        }
    }
    let start = std::time::Instant::now();
    let (mut rounds, mut bytes) = (0u64, 0usize);
    while rounds == 0 || start.elapsed().as_secs_f64() < 1.0 {
        for body in &modules {
            bytes += unparse_module(body).len();
        }
        rounds += 1;
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "printed {} modules x {rounds} in {secs:.2}s: {:.0} modules/s, {:.1} MB/s",
        modules.len(),
        (modules.len() as f64 * rounds as f64) / secs,
        bytes as f64 / secs / 1e6
    );
    Ok(true)
}

fn run() -> Result<bool, String> {
    let mut out_dir: Option<PathBuf> = None;
    let mut files = Vec::new();
    let mut bench_mode = false;
    let mut as_written = false;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--bench" {
            bench_mode = true;
        } else if arg == "--as-written" {
            as_written = true;
        } else if arg == "--out" {
            out_dir = Some(args.next().ok_or("--out needs a directory")?.into());
        } else if arg == "--help" || arg == "-h" {
            return Err("usage: roundtrip [--as-written] [--out DIR | --bench] FILE...".to_owned());
        } else {
            files.push(arg);
        }
    }
    if files.is_empty() {
        return Err("usage: roundtrip [--as-written] [--out DIR | --bench] FILE...".to_owned());
    }
    if bench_mode {
        return bench(&files);
    }
    if let Some(dir) = &out_dir {
        std::fs::create_dir_all(dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    }
    let stdout = std::io::stdout();
    let mut stdout = std::io::BufWriter::new(stdout.lock());
    let mut all_ok = true;
    let mut used = HashSet::new();
    for file in &files {
        let result = read_and_print(Path::new(file), as_written);
        all_ok &= result.is_ok();
        // Write errors on stdout (a closed pipe) end the run quietly.
        let written = match (&out_dir, result) {
            (Some(dir), Ok(text)) => {
                let target = dir.join(output_name(file, &mut used));
                match std::fs::write(&target, text) {
                    Ok(()) => writeln!(stdout, "{file}\t{}", target.display()),
                    Err(e) => writeln!(
                        stdout,
                        "{file}\tERROR cannot write {}: {e}",
                        target.display()
                    ),
                }
            }
            (Some(_), Err(e)) => writeln!(stdout, "{file}\tERROR {e}"),
            (None, Ok(text)) => {
                if files.len() > 1 {
                    let _ = writeln!(stdout, "# ==> {file}");
                }
                stdout.write_all(text.as_bytes())
            }
            (None, Err(e)) => {
                eprintln!("{file}: {e}");
                Ok(())
            }
        };
        if written.is_err() {
            return Ok(all_ok);
        }
    }
    let _ = stdout.flush();
    Ok(all_ok)
}

fn main() -> ExitCode {
    // Deeply nested code recurses deeply in the parser and printer; a big stack keeps
    // that from aborting the whole batch.
    let worker = std::thread::Builder::new()
        .stack_size(512 << 20)
        .spawn(run)
        .map_err(|e| e.to_string())
        .and_then(|h| h.join().map_err(|_| "panic".to_owned()));
    match worker.and_then(|r| r) {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(msg) => {
            eprintln!("{msg}");
            ExitCode::from(2)
        }
    }
}
