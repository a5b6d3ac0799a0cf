//! The scheduler: runs a [`Reducer`] with several candidates out at once and still
//! makes the search of one candidate at a time. It is synchronous and does no I/O:
//! the host feeds it events (a slot is free, a run ended with a verdict) and carries
//! out the actions it returns (run this candidate, cancel that one, report this
//! verdict to the user). The Node host and the playground's worker drive it alike.
//!
//! Three rules make `-j N` follow the search of `-j 1`:
//! - **Verdicts in order.** A verdict enters the search only once every candidate
//!   proposed before it has one, so a fast run never overtakes a slow earlier one.
//! - **Stale candidates.** An accept makes every later candidate of its line stale:
//!   each was made from a program that is no longer the best.
//! - **Speculation.** A success that waits on an earlier run still going (typically
//!   one that hangs until its time limit) would hold every other slot idle. Instead
//!   the scheduler goes on from a copy of the engine in which the earlier candidates
//!   failed and the success was accepted ([`Reducer::speculate`]). The same goes for
//!   a phase's end, where the engine proposes nothing until every verdict is in: the
//!   copy assumes the candidates out all fail. When they do fail, as most do, the
//!   copy takes over ([`Reducer::adopt`]) with its verdicts already in; when one
//!   succeeds, or hangs (a hang changes the next rounds' priors, which the copy may
//!   have started), the copy and its candidates are dropped.

use serde::{Deserialize, Serialize};

use crate::hash::FastMap;
use crate::reducer::{Candidate, Reducer, Stats};

/// What a run of a candidate showed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub enum Verdict {
    /// It failed the same way: the engine may accept it.
    Interesting,
    /// It did not.
    Uninteresting,
    /// It did not, and its run ran out of time or was stuck: the engine then avoids
    /// its rewrite in later rounds (see `Options::forget_hangs`).
    Hung,
}

/// How a [`Scheduler`] runs its reducer.
#[derive(Debug, Clone, Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
#[serde(default, rename_all = "camelCase")]
pub struct ScheduleOptions {
    /// How many candidates run at once (at least 1).
    pub jobs: usize,
    /// Go on from a speculative copy of the engine while a success or a phase's end
    /// waits on earlier runs (default true; false waits, for comparisons).
    pub speculate: bool,
    /// Let [`Scheduler::propose_ahead`] propose the next candidate while the current
    /// ones run (default true; false proposes only when a slot is free).
    pub lookahead: bool,
}

impl Default for ScheduleOptions {
    fn default() -> Self {
        ScheduleOptions {
            jobs: 1,
            speculate: true,
            lookahead: true,
        }
    }
}

/// The new best program after an accept, with its size.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
pub struct Accepted {
    pub source: String,
    /// UTF-8 bytes.
    pub bytes: usize,
    pub lines: usize,
}

impl Accepted {
    /// The best program of `reducer`, with its size.
    fn of(reducer: &Reducer) -> Accepted {
        let stats = reducer.stats();
        Accepted {
            source: reducer.best().to_string(),
            bytes: stats.best_bytes,
            lines: stats.best_lines,
        }
    }
}

/// What the host does next.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
#[serde(tag = "kind", rename_all = "camelCase")]
pub enum Action {
    /// Run this candidate, then pass its verdict to [`Scheduler::finished`].
    Run { candidate: Candidate },
    /// Stop the run of candidate `id`: its verdict no longer matters. Its slot stays
    /// busy until the host reports the run's end to [`Scheduler::finished`].
    Cancel { id: u64 },
    /// A verdict entered the search, in the order one candidate at a time would have
    /// reported it; `accepted` is set when the candidate became the new best.
    Report {
        id: u64,
        phase: String,
        rewrites: Vec<String>,
        sites: usize,
        #[serde(skip_serializing_if = "Option::is_none")]
        accepted: Option<Accepted>,
    },
}

/// Which reducer proposed a candidate: the main one, or the speculative copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Line {
    Main,
    Speculative,
}

/// A candidate from the moment it is proposed until its verdict is reported (or it
/// goes stale and its run ends).
#[derive(Debug)]
struct Entry {
    phase: String,
    rewrites: Vec<String>,
    sites: usize,
    line: Line,
    /// Set once its run is over: whether it was interesting, and whether it hung.
    verdict: Option<(bool, bool)>,
    /// Its verdict no longer matters (it was cancelled).
    stale: bool,
    running: bool,
}

impl Entry {
    fn succeeded(&self) -> bool {
        matches!(self.verdict, Some((true, _)))
    }

    fn report(&self, id: u64, accepted: Option<Accepted>) -> Action {
        Action::Report {
            id,
            phase: self.phase.clone(),
            rewrites: self.rewrites.clone(),
            sites: self.sites,
            accepted,
        }
    }
}

/// The speculative copy and what it depends on.
struct Speculation {
    reducer: Reducer,
    /// Its candidates out, in the order it proposed them.
    order: Vec<u64>,
    /// The success of the main line the copy accepted (none at a phase's end), with
    /// the best program it made.
    success: Option<(u64, Accepted)>,
    /// Reports the copy took in, held back until its assumptions prove true.
    held: Vec<Action>,
}

/// Runs a reduction with up to `jobs` candidates out (see the module's comment).
pub struct Scheduler {
    main: Reducer,
    /// The main line's candidates out, in the order it proposed them.
    order: Vec<u64>,
    spec: Option<Speculation>,
    /// Every candidate proposed whose verdict is not reported yet or whose run is not
    /// over yet, by id (ids never repeat across the two lines).
    entries: FastMap<u64, Entry>,
    /// How many runs are going (cancelled ones too, until they end).
    running: usize,
    /// One candidate proposed ahead, run when a slot frees up.
    ahead: Option<(Candidate, Line)>,
    options: ScheduleOptions,
}

impl Scheduler {
    pub fn new(reducer: Reducer, mut options: ScheduleOptions) -> Scheduler {
        options.jobs = options.jobs.max(1);
        Scheduler {
            main: reducer,
            order: Vec::new(),
            spec: None,
            entries: FastMap::default(),
            running: 0,
            ahead: None,
            options,
        }
    }

    /// Candidates to run now, to fill the free slots. When this returns nothing and
    /// [`Scheduler::running`] is 0, the reduction is over.
    pub fn fill(&mut self) -> Vec<Action> {
        let mut actions = Vec::new();
        loop {
            let line = self.current();
            // A success waiting on an earlier verdict of the proposing line will most
            // likely be accepted, which would make anything started now stale: wait
            // instead (a run that hangs holds it up to the time limit).
            let waits = self.success_waits(line);
            let mut drained = false;
            while self.running < self.options.jobs && !waits {
                let candidate = match self.ahead.take() {
                    Some((candidate, at)) if at == line => Some(candidate),
                    _ => self.reducer(line).next_candidate(),
                };
                let Some(candidate) = candidate else {
                    drained = true;
                    break;
                };
                self.dispatch(candidate, line, &mut actions);
            }
            if drained
                && line == Line::Main
                && self.running < self.options.jobs
                && self.speculate_at_phase_end()
            {
                continue;
            }
            return actions;
        }
    }

    /// The candidate that will most likely run next, proposed while the current ones
    /// run so that the engine's time overlaps them (a host may get ready to run it).
    /// The engine never proposes across a phase's end ahead of verdicts, so this
    /// changes nothing in the search; an accept makes it stale like the candidates
    /// out. `None` with `lookahead` off, with one already ahead, or with nothing
    /// running.
    pub fn propose_ahead(&mut self) -> Option<Candidate> {
        if !self.options.lookahead || self.ahead.is_some() || self.running == 0 {
            return None;
        }
        let line = self.current();
        if self.success_waits(line) {
            return None;
        }
        let candidate = self.reducer(line).next_candidate()?;
        self.ahead = Some((candidate.clone(), line));
        Some(candidate)
    }

    /// The run of candidate `id` ended with `verdict` (a cancelled run's verdict is
    /// ignored). Returns the reports this releases, in order, and the cancellations
    /// they cause.
    pub fn finished(&mut self, id: u64, verdict: Verdict) -> Vec<Action> {
        let mut actions = Vec::new();
        let Some(entry) = self.entries.get_mut(&id).filter(|e| e.running) else {
            return actions;
        };
        entry.running = false;
        self.running -= 1;
        if entry.stale {
            self.entries.remove(&id);
            return actions;
        }
        entry.verdict = Some((verdict == Verdict::Interesting, verdict == Verdict::Hung));
        let line = entry.line;
        self.report(line, &mut actions);
        self.maybe_speculate(&mut actions);
        actions
    }

    /// Cancels every run going and drops the speculation: the reduction stops here,
    /// keeping the best so far.
    pub fn cancel_all(&mut self) -> Vec<Action> {
        let mut actions = Vec::new();
        if self.spec.is_some() {
            self.drop_speculation(&mut actions);
        }
        let running: Vec<u64> = self.running_ids(None);
        self.cancel(&running, &mut actions);
        self.order.clear();
        self.ahead = None;
        actions
    }

    /// How many runs are going (cancelled ones included, until they end).
    pub fn running(&self) -> usize {
        self.running
    }

    /// The reducer whose verdicts are final (not the speculative copy).
    pub fn reducer_in_charge(&self) -> &Reducer {
        &self.main
    }

    pub fn best(&self) -> &str {
        self.main.best()
    }

    pub fn stats(&self) -> Stats {
        self.main.stats()
    }

    pub fn is_done(&self) -> bool {
        self.main.is_done()
    }

    fn current(&self) -> Line {
        if self.spec.is_some() {
            Line::Speculative
        } else {
            Line::Main
        }
    }

    fn reducer(&mut self, line: Line) -> &mut Reducer {
        match (line, &mut self.spec) {
            (Line::Speculative, Some(spec)) => &mut spec.reducer,
            _ => &mut self.main,
        }
    }

    fn order(&mut self, line: Line) -> &mut Vec<u64> {
        match (line, &mut self.spec) {
            (Line::Speculative, Some(spec)) => &mut spec.order,
            _ => &mut self.order,
        }
    }

    fn success_waits(&self, line: Line) -> bool {
        let order = match (line, &self.spec) {
            (Line::Speculative, Some(spec)) => &spec.order,
            _ => &self.order,
        };
        order.iter().any(|id| self.entries[id].succeeded())
    }

    fn running_ids(&self, line: Option<Line>) -> Vec<u64> {
        let mut ids: Vec<u64> = self
            .entries
            .iter()
            .filter(|(_, e)| e.running && line.is_none_or(|l| e.line == l))
            .map(|(&id, _)| id)
            .collect();
        ids.sort_unstable();
        ids
    }

    fn dispatch(&mut self, candidate: Candidate, line: Line, actions: &mut Vec<Action>) {
        self.entries.insert(
            candidate.id,
            Entry {
                phase: candidate.phase.clone(),
                rewrites: candidate.rewrites.clone(),
                sites: candidate.sites,
                line,
                verdict: None,
                stale: false,
                running: true,
            },
        );
        self.running += 1;
        self.order(line).push(candidate.id);
        actions.push(Action::Run { candidate });
    }

    /// Makes `ids` stale: runs going are cancelled, finished ones forgotten.
    fn cancel(&mut self, ids: &[u64], actions: &mut Vec<Action>) {
        for id in ids {
            let Some(entry) = self.entries.get_mut(id) else {
                continue;
            };
            if entry.running {
                if !entry.stale {
                    entry.stale = true;
                    actions.push(Action::Cancel { id: *id });
                }
            } else {
                self.entries.remove(id);
            }
        }
    }

    /// Reports the verdicts at the front of `line` that are in, in order.
    fn report(&mut self, line: Line, actions: &mut Vec<Action>) {
        loop {
            let Some(&id) = self.order(line).first() else {
                return;
            };
            let Some((interesting, hung)) = self.entries[&id].verdict else {
                return;
            };
            self.order(line).remove(0);
            let entry = self
                .entries
                .remove(&id)
                .expect("an entry per candidate out");
            let success = self.spec.as_ref().and_then(|s| s.success.as_ref());
            if line == Line::Main && success.is_some_and(|(s, _)| *s == id) {
                // Every candidate before it failed: the speculation held.
                self.adopt(Some(&entry), actions);
                continue;
            }
            if line == Line::Main && hung && !interesting && self.spec.is_some() {
                // The copy assumed a plain failure, but a hang also starts its site
                // low in later rounds, which the copy may have begun already.
                self.drop_speculation(actions);
            }
            let reducer = self.reducer(line);
            let accepted = if hung && !interesting {
                reducer.report_hung(id);
                false
            } else {
                reducer.report(id, interesting)
            };
            let mut size = None;
            if accepted {
                if line == Line::Main && self.spec.is_some() {
                    // One of the candidates the speculation assumed to fail did not.
                    self.drop_speculation(actions);
                }
                // Every later candidate of the line assumed this one fails: all stale.
                let later = std::mem::take(self.order(line));
                self.cancel(&later, actions);
                if self.ahead.as_ref().is_some_and(|(_, at)| *at == line) {
                    self.ahead = None;
                }
                size = Some(Accepted::of(self.reducer(line)));
            }
            let report = entry.report(id, size);
            match (line, &mut self.spec) {
                (Line::Speculative, Some(spec)) => spec.held.push(report),
                _ => actions.push(report),
            }
            // At a phase's end, every candidate the copy assumed to fail did.
            let phase_end = self.spec.as_ref().is_some_and(|s| s.success.is_none());
            if line == Line::Main && phase_end && self.order.is_empty() {
                self.adopt(None, actions);
            }
        }
    }

    /// The speculation's assumptions held: its line becomes the main one.
    fn adopt(&mut self, success: Option<&Entry>, actions: &mut Vec<Action>) {
        let spec = self.spec.take().expect("a speculation to adopt");
        self.main.adopt(spec.reducer);
        self.order = spec.order;
        for entry in self.entries.values_mut() {
            entry.line = Line::Main;
        }
        if let Some((_, line)) = &mut self.ahead {
            *line = Line::Main;
        }
        // The candidates assumed to fail were reported as their verdicts came in.
        if let (Some(entry), Some((id, accepted))) = (success, spec.success) {
            actions.push(entry.report(id, Some(accepted)));
        }
        actions.extend(spec.held);
    }

    /// An earlier candidate succeeded after all: the speculation is void.
    fn drop_speculation(&mut self, actions: &mut Vec<Action>) {
        let spec = self.spec.take().expect("a speculation to drop");
        let mut ids = self.running_ids(Some(Line::Speculative));
        ids.extend(spec.order);
        self.cancel(&ids, actions);
        if self
            .ahead
            .as_ref()
            .is_some_and(|(_, at)| *at == Line::Speculative)
        {
            self.ahead = None;
        }
    }

    /// Goes on from a copy of the engine in which the main line's candidates `failed`
    /// failed and `success`, if any, was accepted; whether the copy was made.
    fn start_speculation(&mut self, failed: &[u64], success: Option<u64>) -> bool {
        let Some(copy) = self.main.speculate(failed, success) else {
            return false;
        };
        let mut spec = Speculation {
            reducer: copy,
            order: Vec::new(),
            success: None,
            held: Vec::new(),
        };
        if let Some(id) = success {
            spec.success = Some((id, Accepted::of(&spec.reducer)));
        }
        self.spec = Some(spec);
        true
    }

    /// A success of the main line waits on earlier candidates still running: go on
    /// from a copy in which they failed.
    fn maybe_speculate(&mut self, actions: &mut Vec<Action>) {
        if !self.options.speculate || self.spec.is_some() {
            return;
        }
        let Some(at) = self
            .order
            .iter()
            .position(|id| self.entries[id].succeeded())
        else {
            return;
        };
        if at == 0 {
            return;
        }
        let failed = self.order[..at].to_vec();
        if !self.start_speculation(&failed, Some(self.order[at])) {
            return;
        }
        // Proposed on the assumption that the success fails: stale either way.
        let later = self.order.split_off(at + 1);
        self.cancel(&later, actions);
        if self.ahead.as_ref().is_some_and(|(_, at)| *at == Line::Main) {
            self.ahead = None;
        }
    }

    /// The main line has nothing to propose until its candidates out are all judged
    /// (a phase's end): go on from a copy in which they all failed.
    fn speculate_at_phase_end(&mut self) -> bool {
        if !self.options.speculate || self.spec.is_some() || self.order.is_empty() {
            return false;
        }
        if self.order.iter().any(|id| self.entries[id].succeeded()) {
            return false;
        }
        let failed = self.order.clone();
        self.start_speculation(&failed, None)
    }
}
