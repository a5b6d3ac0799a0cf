//! Snapshot tests of the freeze forms: `tests/freeze/NAME.py` is preprocessed;
//! `NAME.expected` holds the program autodd starts from, the warnings, and the
//! program with freeze markers stripped again (what the CLI writes at the end).

mod common;

use autodd_core::{normalize, strip_freeze, Options, Reducer};

#[test]
fn freeze_snapshots() {
    common::check_snapshots("freeze", |_, source| {
        let reducer = Reducer::new(source, Options::default()).expect("input parses");
        let normalized = normalize(source).expect("input parses");
        assert_eq!(reducer.best(), normalized);
        let mut out = normalized.clone();
        out.push_str("# --- warnings\n");
        for w in reducer.warnings() {
            out.push_str(&format!("# {w}\n"));
        }
        out.push_str("# --- stripped\n");
        out.push_str(&strip_freeze(&normalized).expect("normalized parses"));
        out
    });
}

/// Frozen code survives every candidate of a reduction that accepts everything it can.
#[test]
fn frozen_code_survives_a_greedy_reduction() {
    let source = "\
import os
def helper(a, b):
    x = a * 2  # autodd: freeze
    if b:
        return x
    return 0
# autodd: freeze-start
GLOBAL = {'k': 1}
# autodd: end-freeze
with __freeze__:
    for i in range(3):
        pass
helper(1, __freeze__(2 + 3))
";
    let mut reducer = Reducer::new(source, Options::default()).expect("parses");
    let frozen = [
        "x = a * 2",
        "GLOBAL = {'k': 1}",
        "for i in range(3):",
        "__freeze__(2 + 3)",
    ];
    let mut proposed = 0;
    while let Some(c) = reducer.next_candidate() {
        proposed += 1;
        for f in frozen {
            assert!(c.source.contains(f), "candidate lost `{f}`:\n{}", c.source);
        }
        reducer.report(c.id, true);
    }
    assert!(proposed >= 3, "only {proposed} candidates");
    let best = reducer.best();
    assert!(best.contains("from autodd import __freeze__"));
    assert!(!best.contains("import os"));
}
