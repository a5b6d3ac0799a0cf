//! Property tests over a sample of the CPython standard library (found through
//! `python3`): with pseudo-random verdicts, every candidate of the first few hundred
//! steps parses, and code frozen with a freeze block is unchanged in every one.

mod common;

use std::path::PathBuf;
use std::process::Command;

use autodd_core::parse::parse_module;
use autodd_core::unparse::{unparse_module_written, Written};
use autodd_core::{Options, Reducer};
use rustpython_ast::Ranged;

fn stdlib_sample() -> Vec<PathBuf> {
    let out = Command::new("python3")
        .args([
            "-c",
            "import sysconfig; print(sysconfig.get_paths()['stdlib'])",
        ])
        .output()
        .expect("python3 runs");
    let dir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("stdlib dir")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "py"))
        .collect();
    files.sort();
    // Every 8th top-level module: about 25 files of all sizes and styles.
    files.into_iter().step_by(8).collect()
}

/// Wraps the first top-level `def` of `source` in a freeze block; returns the new
/// source and the frozen statement as autodd prints it.
fn freeze_first_def(source: &str) -> Option<(String, String)> {
    let mut body = parse_module(source).ok()?;
    let written = Written::of(source, &mut body);
    let def = body.iter().find(
        |s| matches!(s, rustpython_ast::Stmt::FunctionDef(f) if f.decorator_list.is_empty()),
    )?;
    let start = usize::from(def.start());
    let end = usize::from(def.end());
    let line_start = source[..start].rfind('\n').map_or(0, |i| i + 1);
    if line_start != start {
        return None;
    }
    let rest_end = source[end..]
        .find('\n')
        .map_or(source.len(), |i| end + i + 1);
    let mut text = String::new();
    text.push_str(&source[..start]);
    text.push_str("# autodd: freeze-start\n");
    text.push_str(&source[start..rest_end]);
    text.push_str("# autodd: end-freeze\n");
    text.push_str(&source[rest_end..]);
    // Inside `with __freeze__:` the statement is printed one level deeper (but not
    // the lines of a string it holds that spans lines).
    let mut block = parse_module("with __freeze__:\n    pass\n").ok()?;
    let rustpython_ast::Stmt::With(with) = &mut block[0] else {
        return None;
    };
    with.body = vec![def.clone()];
    let printed = unparse_module_written(&block, &written);
    let printed = printed.split_once('\n')?.1.to_owned();
    Some((text, printed))
}

#[test]
fn candidates_parse_and_frozen_code_survives() {
    let files = stdlib_sample();
    assert!(files.len() >= 15, "found {} stdlib files", files.len());
    let mut checked = 0;
    for (n, path) in files.iter().enumerate() {
        let Ok(source) = std::fs::read_to_string(path) else {
            continue;
        };
        let Ok(mut reducer) = Reducer::new(&source, Options::default()) else {
            continue;
        };
        let mut bits = common::Bits::new(n as u64 + 1);
        for _ in 0..300 {
            let Some(c) = reducer.next_candidate() else {
                break;
            };
            if let Err(e) = parse_module(&c.source) {
                panic!(
                    "{}: candidate {} ({}) does not parse: {e}\n{}",
                    path.display(),
                    c.id,
                    c.rewrites.join(","),
                    c.source
                );
            }
            reducer.report(c.id, bits.coin() && bits.coin());
        }
        checked += 1;

        let Some((frozen_source, frozen)) = freeze_first_def(&source) else {
            continue;
        };
        let mut reducer = Reducer::new(&frozen_source, Options::default()).expect("parses");
        let mut bits = common::Bits::new(n as u64 + 100);
        for _ in 0..300 {
            let Some(c) = reducer.next_candidate() else {
                break;
            };
            assert!(
                c.source.contains(&frozen),
                "{}: candidate {} ({}) changed frozen code",
                path.display(),
                c.id,
                c.rewrites.join(",")
            );
            reducer.report(c.id, bits.coin());
        }
    }
    assert!(checked >= 15);
}
