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
