//! Helpers shared by the integration tests.
#![allow(dead_code)]

use autodd_core::{Options, Reducer};

/// A deterministic pseudo-random bit stream (xorshift), so tests need no extra crate.
pub struct Bits(u64);

impl Bits {
    pub fn new(seed: u64) -> Self {
        Bits(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1)
    }
    pub fn coin(&mut self) -> bool {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 & 1 == 1
    }
}

/// Runs a reduction to the end with an in-process oracle, one candidate at a time.
/// Returns the result and the number of candidates run.
pub fn reduce_with(source: &str, mut oracle: impl FnMut(&str) -> bool) -> (String, u64) {
    let mut reducer = Reducer::new(source, Options::default()).expect("source parses");
    let mut runs = 0;
    while let Some(c) = reducer.next_candidate() {
        runs += 1;
        let verdict = oracle(&c.source);
        reducer.report(c.id, verdict);
    }
    assert!(reducer.is_done());
    (reducer.best().to_string(), runs)
}

pub fn fixture(name: &str) -> String {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// Checks every `NAME.py` of `tests/<dir>/` against `NAME.expected` through `render`.
/// `UPDATE_SNAPSHOTS=1` rewrites the expected files; an expected file without its
/// input fails, so renamed or deleted inputs leave no stale snapshots behind.
pub fn check_snapshots(dir: &str, render: impl Fn(&str, &str) -> String) {
    let update = std::env::var_os("UPDATE_SNAPSHOTS").is_some_and(|v| v == "1");
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests")
        .join(dir);
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("snapshot dir exists")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .collect();
    names.sort();
    let mut failures = Vec::new();
    let mut checked = 0;
    for name in &names {
        if let Some(stem) = name.strip_suffix(".expected") {
            if !names.contains(&format!("{stem}.py")) {
                failures.push(format!("{name}: unreferenced snapshot (no {stem}.py)"));
            }
            continue;
        }
        let Some(stem) = name.strip_suffix(".py") else {
            continue;
        };
        let input = std::fs::read_to_string(dir.join(name)).expect("read input");
        let actual = render(stem, &input);
        let expected_path = dir.join(format!("{stem}.expected"));
        checked += 1;
        if update {
            std::fs::write(&expected_path, &actual).expect("write snapshot");
            continue;
        }
        match std::fs::read_to_string(&expected_path) {
            Ok(expected) if expected == actual => {}
            Ok(expected) => failures.push(format!(
                "{name}: output differs from {stem}.expected\n--- expected\n{expected}--- actual\n{actual}"
            )),
            Err(_) => failures.push(format!("{name}: no {stem}.expected (run with UPDATE_SNAPSHOTS=1)")),
        }
    }
    assert!(checked > 0, "no inputs in {}", dir.display());
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
