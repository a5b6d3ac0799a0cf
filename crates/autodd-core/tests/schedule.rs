//! The scheduler under a simulated host: runs take pseudo-random times (some hang
//! until a time limit), end out of order, and cancelled runs end early. Whatever the
//! jobs, speculation and lookahead, the verdicts it reports must be those of one
//! candidate at a time.

mod common;

use std::collections::{BTreeMap, HashMap, HashSet};

use autodd_core::{Action, Options, Reducer, ScheduleOptions, Scheduler, Verdict};
use common::fixture;

const RAISE: &str = "raise ValueError('K shape check failed')";

/// Ids at or above this were handed out by a speculative copy of the engine.
const SPECULATIVE: u64 = 1 << 32;

/// An FNV-1a hash of a candidate's text: verdicts and run times that depend only on
/// the text, so two searches can be compared candidate by candidate.
fn hash(text: &str, salt: u64) -> u64 {
    text.bytes().fold(0xcbf2_9ce4_8422_2325 ^ salt, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// What a simulated reduction did.
#[derive(Default)]
struct Trace {
    /// Each reported verdict: the candidate's text, and whether it was accepted.
    reported: Vec<(String, bool)>,
    /// Reports of candidates a speculative copy proposed (the copy was adopted).
    adopted: usize,
    /// Cancelled runs of a speculative copy (the copy was dropped).
    dropped: usize,
    /// Most runs going at once.
    busiest: usize,
    result: String,
}

/// Drives `source` to its end through a scheduler. A run of text `c` takes 1 to 20
/// ticks, or 200 when `hangs(c)` (and then counts as hung); a cancelled run ends on
/// the next tick.
fn simulate(
    source: &str,
    options: ScheduleOptions,
    interesting: impl Fn(&str) -> bool,
    hangs: impl Fn(&str) -> bool,
) -> Trace {
    let reducer = Reducer::new(source, Options::default()).expect("parses");
    let jobs = options.jobs;
    let mut scheduler = Scheduler::new(reducer, options);
    let mut trace = Trace::default();
    let mut texts: HashMap<u64, String> = HashMap::new();
    // Runs going: (end tick, id) → verdict.
    let mut runs: BTreeMap<(u64, u64), Verdict> = BTreeMap::new();
    let mut now = 0u64;
    let mut ids = HashSet::new();
    let mut actions = scheduler.fill();
    loop {
        for action in actions.drain(..) {
            match action {
                Action::Run { candidate } => {
                    assert!(ids.insert(candidate.id), "id {} ran twice", candidate.id);
                    let text = candidate.source;
                    let (ticks, verdict) = if hangs(&text) {
                        (200, Verdict::Hung)
                    } else if interesting(&text) {
                        (1 + hash(&text, 1) % 20, Verdict::Interesting)
                    } else {
                        (1 + hash(&text, 1) % 20, Verdict::Uninteresting)
                    };
                    runs.insert((now + ticks, candidate.id), verdict);
                    texts.insert(candidate.id, text);
                }
                Action::Cancel { id } => {
                    let key = *runs.keys().find(|(_, i)| *i == id).expect("a run going");
                    let verdict = runs.remove(&key).expect("a run going");
                    runs.insert((now + 1, id), verdict);
                    if id >= SPECULATIVE {
                        trace.dropped += 1;
                    }
                }
                Action::Report { id, accepted, .. } => {
                    if id >= SPECULATIVE {
                        trace.adopted += 1;
                    }
                    trace
                        .reported
                        .push((texts[&id].clone(), accepted.is_some()));
                }
            }
        }
        assert!(scheduler.running() <= jobs, "more runs than jobs");
        assert_eq!(scheduler.running(), runs.len());
        trace.busiest = trace.busiest.max(runs.len());
        if runs.is_empty() {
            actions = scheduler.fill();
            if actions.is_empty() {
                break;
            }
            continue;
        }
        if let Some(candidate) = scheduler.propose_ahead() {
            assert!(!ids.contains(&candidate.id), "proposed ahead after it ran");
        }
        let (&(end, id), &verdict) = runs.iter().next().expect("a run going");
        runs.remove(&(end, id));
        now = end;
        actions = scheduler.finished(id, verdict);
        actions.extend(scheduler.fill());
    }
    assert!(scheduler.is_done());
    trace.result = scheduler.best().to_string();
    trace
}

fn programs() -> Vec<(String, &'static str)> {
    let example = format!(
        "{}/../../examples/autodd/tile_kernel_bug.py",
        env!("CARGO_MANIFEST_DIR")
    );
    let example = std::fs::read_to_string(example).expect("the bundled example");
    vec![
        (fixture("kernel.py"), RAISE),
        (example, "K shape check failed"),
    ]
}

#[test]
fn any_jobs_speculation_and_lookahead_follow_the_search_of_one_at_a_time() {
    for (source, key) in programs() {
        // The failure stays, plus a pseudo-random two thirds; one in 25 hangs.
        let interesting = |c: &str| c.contains(key) && !hash(c, 0).is_multiple_of(3);
        let hangs = |c: &str| hash(c, 2).is_multiple_of(25);
        let one = simulate(&source, ScheduleOptions::default(), interesting, hangs);
        assert!(
            one.reported.iter().filter(|(_, a)| *a).count() > 5,
            "{key}: too few accepts"
        );
        assert_eq!(one.busiest, 1);
        let (mut adopted, mut dropped) = (0, 0);
        for jobs in [2, 3, 5] {
            for speculate in [true, false] {
                for lookahead in [true, false] {
                    let options = ScheduleOptions {
                        jobs,
                        speculate,
                        lookahead,
                    };
                    let run = simulate(&source, options, interesting, hangs);
                    let what =
                        format!("{key}: -j {jobs}, speculate {speculate}, lookahead {lookahead}");
                    assert_eq!(run.reported.len(), one.reported.len(), "{what}");
                    assert!(run.reported == one.reported, "{what}: another search");
                    assert_eq!(run.result, one.result, "{what}");
                    assert_eq!(run.busiest, jobs, "{what}: slots left idle");
                    if !speculate {
                        assert_eq!(run.adopted + run.dropped, 0, "{what}");
                    }
                    adopted += run.adopted;
                    dropped += run.dropped;
                }
            }
        }
        // Both ends of a speculation happened, so both were checked above.
        assert!(
            adopted > 10 && dropped > 10,
            "{key}: {adopted} adopted, {dropped} dropped"
        );
    }
}

#[test]
fn cancelling_everything_keeps_the_best_so_far_and_frees_every_slot() {
    let (source, key) = programs().remove(0);
    let reducer = Reducer::new(&source, Options::default()).expect("parses");
    let options = ScheduleOptions {
        jobs: 3,
        ..ScheduleOptions::default()
    };
    let mut scheduler = Scheduler::new(reducer, options);
    let verdict = |text: &str| {
        if text.contains(key) {
            Verdict::Interesting
        } else {
            Verdict::Uninteresting
        }
    };
    // Runs going, in the order they started; the first one ends first.
    let mut going: Vec<(u64, Verdict)> = Vec::new();
    let mut cancelled = HashSet::new();
    let mut best = None;
    while best.is_none() {
        for action in scheduler.fill() {
            if let Action::Run { candidate } = action {
                going.push((candidate.id, verdict(&candidate.source)));
            }
        }
        let (id, v) = going.remove(0);
        for action in scheduler.finished(id, v) {
            match action {
                Action::Report {
                    accepted: Some(accepted),
                    ..
                } => best = Some(accepted.source),
                Action::Cancel { id } => assert!(cancelled.insert(id)),
                _ => {}
            }
        }
    }
    let best = best.expect("an accept");
    assert_eq!(scheduler.best(), best);
    for action in scheduler.cancel_all() {
        let Action::Cancel { id } = action else {
            panic!("only cancels, not {action:?}");
        };
        assert!(cancelled.insert(id), "{id} cancelled twice");
    }
    assert_eq!(scheduler.running(), going.len());
    for (id, _) in going {
        assert!(cancelled.contains(&id), "{id} still runs");
        // A cancelled run's verdict counts for nothing, even a success.
        assert!(scheduler.finished(id, Verdict::Interesting).is_empty());
    }
    assert_eq!(scheduler.running(), 0);
    assert_eq!(scheduler.best(), best);
}
