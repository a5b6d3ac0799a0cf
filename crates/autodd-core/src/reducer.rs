//! The step API: a state machine the host drives. `next_candidate` proposes a program,
//! the host runs it, `report` says whether it was interesting. Hosts differ only in
//! how they answer; the engine never waits, sleeps or does I/O.

use serde::Serialize;

use crate::error::Error;

/// Options of a reduction.
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct Options {
    /// Restrict the reduction to these rewrites (user-visible names); `None` runs all.
    pub rewrites: Option<Vec<String>>,
}

/// A program proposed for the host to run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Candidate {
    /// Unique within one reduction; pass it back to [`Reducer::report`].
    pub id: u64,
    /// The full program text.
    pub source: String,
    /// Name of the phase that proposed it (`fast`, `canonicalize`, ...).
    pub phase: String,
    /// Distinct names of the rewrites applied, in the order of their first site.
    pub rewrites: Vec<String>,
    /// How many rewrite sites were applied at once.
    pub sites: usize,
}

/// Counters and sizes of a reduction so far.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Stats {
    pub proposed: u64,
    pub reported: u64,
    pub accepted: u64,
    pub stale: u64,
    pub cache_hits: u64,
    pub phase: String,
    pub round: u32,
    pub original_bytes: usize,
    pub original_lines: usize,
    pub best_bytes: usize,
    pub best_lines: usize,
}

/// The reduction engine behind the step API.
pub struct Reducer {
    best: String,
    stats: Stats,
    warnings: Vec<String>,
}

impl Reducer {
    /// Parses and freeze-preprocesses `source`.
    pub fn new(source: &str, options: Options) -> Result<Reducer, Error> {
        let _ = options;
        Ok(Reducer { best: source.to_string(), stats: Stats::default(), warnings: Vec::new() })
    }

    /// The next program to try, or `None` when nothing is left to propose right now
    /// (the reduction is over once [`Reducer::is_done`] says so).
    pub fn next_candidate(&mut self) -> Option<Candidate> {
        None
    }

    /// The verdict for candidate `id`. Reports of stale or unknown ids are ignored.
    pub fn report(&mut self, id: u64, interesting: bool) {
        let _ = (id, interesting);
    }

    /// The current best program (the smallest interesting one once done).
    pub fn best(&self) -> &str {
        &self.best
    }

    pub fn is_done(&self) -> bool {
        true
    }

    pub fn stats(&self) -> Stats {
        self.stats.clone()
    }

    /// Messages for the user about the input (e.g. an unterminated freeze block).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }
}
