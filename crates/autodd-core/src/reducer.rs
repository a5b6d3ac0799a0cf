//! The step API: a state machine the host drives. `next_candidate` proposes a program,
//! the host runs it, `report` says whether it was interesting. Hosts differ only in
//! how they answer; the engine never waits, sleeps or does I/O.
//!
//! Several candidates may be out at once (`-j N`): each next one assumes the earlier
//! ones fail, as one shared generator. When one is accepted, every other candidate
//! still out is stale and its report is ignored.

use std::hash::{Hash, Hasher};
use std::sync::Arc;

use serde::Serialize;

use crate::apply::{apply_sites, apply_sites_to_statements};
use crate::clean::{clean_module, clean_statements};
use crate::error::{Error, ErrorCode};
use crate::freeze;
use crate::hash::{fingerprint, FastHasher, FastMap, FastSet};
use crate::parse::{self, ast::Stmt};
use crate::phase::{Phase, SCHEDULE};
use crate::rewrites::make;
use crate::rewrites::{Rewrite, RewriteSet};
use crate::search::{Pdd, INITIAL_P};
use crate::sites::{find_sites, Site, SiteMap};
use crate::unparse::{unparse_module_starts, unparse_pieces, Piece, Written};
use crate::validity;

/// Options of a reduction.
#[derive(Debug, Clone, Default, serde::Deserialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
#[cfg_attr(feature = "ts", tsify(type_prefix = "Reducer"))]
#[serde(default, rename_all = "camelCase")]
pub struct Options {
    /// Restrict the reduction to these rewrites (user-visible names); `None` runs all.
    pub rewrites: Option<Vec<String>>,
    /// Start every search after an accepted candidate with fresh probabilities, as
    /// plain PDD does. By default a site whose node survives unchanged keeps what
    /// the search learned about it within the phase (each phase still begins fresh,
    /// so the result stays 1-minimal for the sites of the last round).
    pub forget: bool,
    /// Propose candidates that CPython would refuse to compile (off by default: they
    /// can never be interesting, so running them only costs time).
    pub allow_invalid: bool,
    /// Only the rewrites of the tool autodd replaces (for comparisons): none of
    /// autodd's own rewrites and list removals.
    pub reference_only: bool,
    /// Run the canonicalizing phase (`attach-full-func-args`, `with-bind-0`) in every
    /// round, as the reference does. By default it runs in the first round only:
    /// later it mostly re-adds the `*args, **kwargs` the previous round removed, and
    /// removing them again costs runs without shrinking anything else.
    pub canonicalize_every_round: bool,
    /// Start each phase of a round with fresh probabilities. By default a phase starts
    /// from what the previous phase of the round learned about the sites both have
    /// (a statement that could not be removed alone in `fast` is not tried again in
    /// groups in `simplify`). Each round still starts fresh.
    pub fresh_phases: bool,
    /// Start every site of a fresh search at 0.93, as plain PDD does. By default the
    /// rewrites that replace a value start low (see `Rewrite::prior`).
    pub uniform_priors: bool,
    /// Start a later round's searches with the sites whose rewrite alone made a
    /// candidate hang (see [`Reducer::report_hung`]) at the usual prior, as plain PDD
    /// does. By default they start low: each is tried alone, after the other sites,
    /// and never drags a group of sites into another hang.
    pub forget_hangs: bool,
    /// Keep PDD's group size after successes, as plain PDD does. By default the sites
    /// not yet tried start higher once the phase's candidates have mostly been
    /// accepted, so groups grow (see `Reducer::prior_scale`).
    pub fixed_groups: bool,
    /// Classes that `class-to-base` never replaces by their base: the exception
    /// types a reduction that must keep the kind of failure keeps (`--same-error`).
    pub keep_classes: Vec<String>,
}

/// A program proposed for the host to run.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
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
#[cfg_attr(feature = "ts", derive(tsify::Tsify))]
#[serde(rename_all = "camelCase")]
pub struct Stats {
    /// Candidates handed to the host.
    pub proposed: u64,
    /// Reports received for candidates that were still current.
    pub reported: u64,
    pub accepted: u64,
    /// Candidates made stale by the acceptance of another.
    pub stale: u64,
    /// Candidates not proposed because the same text was proposed before.
    pub cache_hits: u64,
    /// Candidates not proposed because they could not be accepted (no change, or
    /// longer than the best in a phase that only accepts shrinking).
    pub skipped: u64,
    /// Candidates not proposed because CPython would refuse to compile them
    /// (`break` outside a loop, `return` outside a function, ...).
    pub invalid: u64,
    pub phase: String,
    pub round: u32,
    pub original_bytes: usize,
    pub original_lines: usize,
    pub best_bytes: usize,
    pub best_lines: usize,
}

/// Where the schedule stands.
#[derive(Debug, Clone, Copy)]
struct Cursor {
    phase: usize,
    round: u32,
    /// Length of the best when the round began.
    round_start_len: usize,
}

/// A candidate out, awaiting its verdict. Every one was proposed in the current
/// search: a phase is never entered while candidates are out, and an accept makes
/// all the others stale.
#[derive(Debug, Clone)]
struct Pending {
    id: u64,
    source: String,
    /// Where its top-level statements start in `source`.
    starts: Vec<usize>,
    /// The probabilities its sites had before its assumed failure lowered them, in
    /// the order the proposal changed them.
    before: Vec<(usize, f64)>,
    /// Its entry in the verdict cache, withdrawn should it go stale unjudged.
    hash: u128,
    /// The key of its site, if it rewrote one (remembered should it hang).
    key: Option<SiteKey>,
    /// How many sites it rewrote.
    size: usize,
}

/// The reduction engine behind the step API.
#[derive(Clone)]
pub struct Reducer {
    allowed: RewriteSet,
    best: String,
    best_ast: Vec<Stmt>,
    /// Where the top-level statements of `best` start.
    best_starts: Vec<usize>,
    /// How the literals of `best` are written (the user's spelling, kept).
    written: Arc<Written>,
    best_len: usize,
    smallest: String,
    smallest_len: usize,
    cursor: Cursor,
    map: SiteMap,
    /// The key of each site of `map` (see `site_keys`).
    keys: Vec<SiteKey>,
    pdd: Pdd,
    /// Each site's probability when its search started, before anything learned was
    /// seeded: a site still there has not been tried.
    start: Vec<f64>,
    /// Sites applied by the accepted candidates of the current phase, and its
    /// rejected candidates.
    phase_applied: u64,
    phase_rejected: u64,
    fixed_groups: bool,
    forget: bool,
    canonicalize_every_round: bool,
    fresh_phases: bool,
    uniform_priors: bool,
    /// What the finished phases of this round learned, by site key.
    round_memory: FastMap<SiteKey, f64>,
    /// The sites whose rewrite alone made a candidate hang, in any round so far.
    hung: FastSet<SiteKey>,
    forget_hangs: bool,
    allow_invalid: bool,
    reference_only: bool,
    keep_classes: Vec<String>,
    seen: FastSet<u128>,
    pending: Vec<Pending>,
    next_id: u64,
    exhausted: bool,
    stats: Stats,
    warnings: Vec<String>,
}

impl Reducer {
    /// Parses and freeze-preprocesses `source`. The first [`Reducer::best`] is the
    /// program as autodd prints it, with freeze comments turned into blocks.
    pub fn new(source: &str, options: Options) -> Result<Reducer, Error> {
        let everything = if options.reference_only {
            RewriteSet::reference()
        } else {
            RewriteSet::all()
        };
        let allowed = match &options.rewrites {
            None => everything,
            Some(names) => {
                let mut set = Vec::new();
                for name in names {
                    match Rewrite::from_name(name) {
                        Some(r) => set.push(r),
                        None => {
                            return Err(Error::new(
                                ErrorCode::UnknownRewrite,
                                format!("unknown rewrite `{name}`"),
                            ))
                        }
                    }
                }
                RewriteSet::of(&set).intersect(everything)
            }
        };
        let (mut body, warnings) = freeze::preprocess(source)?;
        if body.is_empty() {
            return Err(Error::new(
                ErrorCode::EmptySource,
                "the program has no statements",
            ));
        }
        clean_module(&mut body);
        let written = Written::of(source, &mut body);
        let (best, best_starts) = unparse_module_starts(&body, Some(&written));
        // Re-read the printed program so node ranges point into `best`.
        let mut body = parse::parse_module(&best)?;
        let written = Arc::new(Written::of(&best, &mut body));
        let best_len = best.chars().count();
        let mut seen = FastSet::default();
        seen.insert(fingerprint(&best));
        let stats = Stats {
            phase: SCHEDULE[0].name().to_string(),
            round: 1,
            original_bytes: source.len(),
            original_lines: source.lines().count(),
            best_bytes: best.len(),
            best_lines: best.lines().count(),
            ..Stats::default()
        };
        let mut reducer = Reducer {
            allowed,
            smallest: best.clone(),
            smallest_len: best_len,
            best,
            best_ast: body,
            best_starts,
            written,
            best_len,
            cursor: Cursor {
                phase: 0,
                round: 1,
                round_start_len: best_len,
            },
            map: SiteMap::default(),
            keys: Vec::new(),
            pdd: Pdd::new(0),
            start: Vec::new(),
            phase_applied: 0,
            phase_rejected: 0,
            fixed_groups: options.fixed_groups,
            forget: options.forget,
            canonicalize_every_round: options.canonicalize_every_round,
            fresh_phases: options.fresh_phases,
            uniform_priors: options.uniform_priors,
            round_memory: FastMap::default(),
            hung: FastSet::default(),
            forget_hangs: options.forget_hangs,
            allow_invalid: options.allow_invalid,
            reference_only: options.reference_only,
            keep_classes: options.keep_classes,
            seen,
            pending: Vec::new(),
            next_id: 1,
            exhausted: false,
            stats,
            warnings,
        };
        reducer.refresh_sites();
        Ok(reducer)
    }

    fn phase(&self) -> Phase {
        SCHEDULE[self.cursor.phase]
    }

    /// Finds the sites of the current phase on the current best and starts a fresh search.
    fn refresh_sites(&mut self) {
        let kinds = self.phase().rewrites().intersect(self.allowed);
        self.map = find_sites(
            &self.best_ast,
            kinds,
            self.reference_only,
            &self.keep_classes,
        );
        self.keys = site_keys(&self.map, &self.best);
        let scale = self.prior_scale();
        let priors = self.map.sites.iter().map(|site| {
            let p = if self.uniform_priors {
                INITIAL_P
            } else {
                self.map.prior(site)
            };
            1.0 - (1.0 - p) * scale
        });
        self.pdd = Pdd::with_priors(priors.collect());
        // Empty with `forget_hangs`: `report_hung` then remembers nothing.
        if !self.hung.is_empty() {
            for (i, key) in self.keys.iter().enumerate() {
                if self.hung.contains(key) {
                    self.pdd.set_probability(i, HUNG_PRIOR);
                }
            }
        }
        self.start = (0..self.keys.len())
            .map(|i| self.pdd.probability(i))
            .collect();
        self.stats.phase = self.phase().name().to_string();
        self.stats.round = self.cursor.round;
    }

    /// What the chance that a site not yet tried fails is multiplied by, from 1 at
    /// a phase's start down as its candidates are accepted. The phase's rate of
    /// success is estimated as a Beta posterior whose prior is PDD's 0.93 with the
    /// weight of one failure: each site an accepted candidate applied counts as a
    /// success, each rejected candidate as a failure. Where almost everything goes
    /// (2,000 independent functions), the groups of fourteen that 0.93 gives would
    /// take n/7 accepted candidates, each re-reading the whole program; with the
    /// estimate the groups grow with what was removed, about doubling each time.
    /// Failures bring the scale back to 1, never above: the priors stay the floor.
    fn prior_scale(&self) -> f64 {
        if self.fixed_groups {
            return 1.0;
        }
        let (applied, rejected) = (self.phase_applied as f64, self.phase_rejected as f64);
        ((1.0 + rejected) / (1.0 + (1.0 - INITIAL_P) * (applied + rejected))).min(1.0)
    }

    /// Moves to the next phase, the next round, or the end.
    fn advance(&mut self) {
        self.phase_applied = 0;
        self.phase_rejected = 0;
        // Within a round, the next phase starts from what this one learned about the
        // sites both have (the statement rewrites every phase shares, ...).
        let carry = !self.forget && !self.fresh_phases;
        if carry {
            let learned = self.learned();
            self.round_memory.extend(learned);
        }
        self.cursor.phase += 1;
        if self.cursor.round > 1
            && !self.canonicalize_every_round
            && SCHEDULE.get(self.cursor.phase) == Some(&Phase::Canonicalize)
        {
            self.cursor.phase += 1;
        }
        if SCHEDULE.get(self.cursor.phase) == Some(&Phase::Polish)
            && self.best_len < self.cursor.round_start_len
        {
            // The round shrank the program: the next round comes before polishing.
            self.cursor.phase += 1;
        }
        if self.cursor.phase == SCHEDULE.len() {
            if self.best_len < self.cursor.round_start_len {
                self.cursor = Cursor {
                    phase: 0,
                    round: self.cursor.round + 1,
                    round_start_len: self.best_len,
                };
                // A new round starts fresh: its searches retry every site.
                self.round_memory.clear();
            } else {
                self.cursor.phase = SCHEDULE.len() - 1;
                self.exhausted = true;
                return;
            }
        }
        self.refresh_sites();
        if carry {
            self.seed(None, true);
        }
    }

    /// Gives the sites of the current search the probability learned for their keys:
    /// from `learned` if it has the key, else from the round's memory (when `memory`).
    fn seed(&mut self, learned: Option<&FastMap<SiteKey, f64>>, memory: bool) {
        let memory = memory.then_some(&self.round_memory);
        for (i, key) in self.keys.iter().enumerate() {
            let p = learned
                .and_then(|l| l.get(key))
                .or_else(|| memory.and_then(|m| m.get(key)));
            if let Some(&p) = p {
                self.pdd.set_probability(i, p);
            }
        }
    }

    /// The next program to try, or `None` when nothing is left to propose right now.
    /// `None` with candidates still out is not the end: accepting one of them
    /// resumes the search. The reduction is over once [`Reducer::is_done`] says so.
    pub fn next_candidate(&mut self) -> Option<Candidate> {
        // Every selection this proposal makes assumes failure, the ones that are
        // skipped on the way (invalid, a repeat) too: all of it is undone should the
        // proposal go stale.
        let mut before: Vec<(usize, f64)> = Vec::new();
        loop {
            if self.exhausted {
                return None;
            }
            let Some(chosen) = self.pdd.select() else {
                // The next phase starts from what this one learned, which is final
                // only once every verdict is in: a phase is never entered on
                // speculation, so `-j N` (and a host that proposes ahead) follows the
                // search of one candidate at a time.
                if !self.pending.is_empty() {
                    // Selections skipped on the way are made again next time.
                    for (i, p) in before.into_iter().rev() {
                        self.pdd.set_probability(i, p);
                    }
                    return None;
                }
                self.advance();
                continue;
            };
            // Assume failure now; a success restarts the search anyway. Should this
            // candidate be made stale by another's success, the assumption is undone.
            before.extend(chosen.iter().map(|&i| (i, self.pdd.probability(i))));
            self.pdd.fail(&chosen);
            let key = match chosen[..] {
                [site] => Some(self.keys[site]),
                _ => None,
            };
            let sites: Vec<_> = chosen.iter().map(|&i| self.map.sites[i]).collect();
            let Some((source, starts)) = self.build(&sites) else {
                self.stats.invalid += 1;
                continue;
            };
            let too_long =
                !self.phase().accepts_any_size() && source.chars().count() > self.best_len;
            if source == self.best || too_long {
                self.stats.skipped += 1;
                continue;
            }
            let hash = fingerprint(&source);
            if !self.seen.insert(hash) {
                self.stats.cache_hits += 1;
                continue;
            }
            let mut rewrites: Vec<String> = Vec::new();
            for site in &sites {
                let name = site.rewrite.name();
                if !rewrites.iter().any(|r| r == name) {
                    rewrites.push(name.to_string());
                }
            }
            let id = self.next_id;
            self.next_id += 1;
            self.stats.proposed += 1;
            self.pending.push(Pending {
                id,
                source: source.clone(),
                starts,
                before,
                hash,
                key,
                size: sites.len(),
            });
            return Some(Candidate {
                id,
                source,
                phase: self.phase().name().to_string(),
                rewrites,
                sites: sites.len(),
            });
        }
    }

    /// The program the best becomes with `sites` rewritten, cleaned, and printed (with
    /// where its top-level statements start); `None` if CPython would refuse to
    /// compile it (unless invalid candidates are allowed).
    fn build(&self, sites: &[Site]) -> Option<(String, Vec<usize>)> {
        if sites.iter().any(|s| s.rewrite.reaches_other_statements()) {
            return self.build_whole(sites);
        }
        let built = self.build_spliced(sites);
        #[cfg(debug_assertions)]
        {
            // Only the changed statements are checked for validity: a best program
            // that CPython would refuse (its failure is a `SyntaxError`) makes every
            // whole candidate invalid, yet the spliced ones may still reduce it.
            let whole = self.build_whole(sites);
            if whole.is_some() || built.is_none() {
                assert!(
                    built == whole,
                    "a candidate built statement by statement differs from one built whole"
                );
            }
        }
        built
    }

    /// [`Reducer::build`] on a copy of the whole best tree.
    fn build_whole(&self, sites: &[Site]) -> Option<(String, Vec<usize>)> {
        let mut body = self.best_ast.clone();
        apply_sites(&mut body, &self.map, sites);
        clean_module(&mut body);
        if !self.allow_invalid && !validity::compiles(&mut body) {
            return None;
        }
        Some(unparse_module_starts(&body, Some(&self.written)))
    }

    /// [`Reducer::build`] for sites that change only their own top-level statements:
    /// only those are copied, rewritten, cleaned, checked and printed; the text of the
    /// others is copied from the best program. A candidate typically changes one
    /// statement of dozens, and copying, freeing and printing the whole tree was most
    /// of the engine's time per candidate.
    fn build_spliced(&self, sites: &[Site]) -> Option<(String, Vec<usize>)> {
        // The node id of each top-level statement: ids count the tree in order, so a
        // statement's subtree ends where the next statement begins.
        let mut tops = Vec::with_capacity(self.best_ast.len());
        let mut id = 0u32;
        for _ in &self.best_ast {
            tops.push(id);
            id = self.map.ends.get(id as usize).copied().unwrap_or(id + 1);
        }
        // A `remove-with-uses` site also touches the statements holding its uses.
        let uses = sites
            .iter()
            .filter(|s| s.rewrite == Rewrite::RemoveWithUses)
            .flat_map(|s| self.map.uses.get(&s.node).into_iter().flatten());
        let mut touched: Vec<usize> = sites
            .iter()
            .map(|s| s.node)
            .chain(uses.copied())
            .map(|node| tops.partition_point(|&t| t <= node).saturating_sub(1))
            .collect();
        touched.sort_unstable();
        touched.dedup();
        let mut changed: Vec<(u32, Vec<Stmt>)> = touched
            .iter()
            .map(|&i| (tops[i], vec![self.best_ast[i].clone()]))
            .collect();
        apply_sites_to_statements(&mut changed, &self.map, sites);
        for (_, body) in changed.iter_mut() {
            clean_statements(body);
            if !self.allow_invalid && !validity::compiles(body) {
                return None;
            }
        }
        // The rest of cleaning a module: `pass` only where it would otherwise be empty.
        let count = self.best_ast.len() - touched.len()
            + changed.iter().map(|(_, body)| body.len()).sum::<usize>();
        let mut pieces: Vec<(Piece, bool)> = Vec::with_capacity(count);
        let mut next = changed.iter();
        let mut touched = touched.iter().peekable();
        for (i, stmt) in self.best_ast.iter().enumerate() {
            if touched.next_if_eq(&&i).is_some() {
                let (_, body) = next.next().expect("one body per touched statement");
                pieces.extend(
                    body.iter()
                        .map(|s| (Piece::Stmt(s), matches!(s, Stmt::Pass(_)))),
                );
            } else {
                let end = self
                    .best_starts
                    .get(i + 1)
                    .copied()
                    .unwrap_or(self.best.len());
                let text = &self.best[self.best_starts[i]..end];
                pieces.push((Piece::Printed(text), matches!(stmt, Stmt::Pass(_))));
            }
        }
        if pieces.len() > 1 {
            pieces.retain(|(_, pass)| !pass);
        }
        let pass = make::pass();
        if pieces.is_empty() {
            pieces.push((Piece::Stmt(&pass), true));
        }
        let pieces: Vec<Piece> = pieces.into_iter().map(|(piece, _)| piece).collect();
        Some(unparse_pieces(&pieces, Some(&self.written)))
    }

    /// The verdict for candidate `id`; returns whether it was accepted (it becomes
    /// the new best). Reports of stale or unknown ids are ignored.
    pub fn report(&mut self, id: u64, interesting: bool) -> bool {
        let Some(pos) = self.pending.iter().position(|p| p.id == id) else {
            return false;
        };
        let candidate = self.pending.remove(pos);
        self.stats.reported += 1;
        if !interesting {
            self.phase_rejected += 1;
            return false;
        }
        let reparsed = parse::reparse_module(
            &candidate.source,
            &candidate.starts,
            &self.best,
            &self.best_starts,
            &self.best_ast,
        );
        #[cfg(debug_assertions)]
        if let Ok(body) = &reparsed {
            // What the statements copied from the best program are checked against.
            let whole = parse::parse_module(&candidate.source).expect("a reparsed program parses");
            assert!(*body == whole, "reparse_module differs from parse_module");
        }
        let mut body = match reparsed {
            Ok(body) => body,
            Err(e) => {
                // Only a printer bug gets here; never accept what we cannot re-read.
                self.warnings.push(format!(
                    "internal: a candidate did not re-parse ({e}); skipped"
                ));
                return false;
            }
        };
        self.stats.stale += self.pending.len() as u64;
        // The candidates still out never got a verdict: what their proposal assumed
        // (that they fail) must not outlive them, or the search would carry on as if
        // their sites had been tried (with `-j 2` a stale single site would never be
        // tried again in this phase).
        // Nor may their texts stay in the verdict cache: they were never judged.
        for stale in self.pending.drain(..).rev() {
            self.seen.remove(&stale.hash);
            // Latest first, so a site failed twice ends at its first value.
            for (i, p) in stale.before.into_iter().rev() {
                self.pdd.set_probability(i, p);
            }
        }
        self.stats.accepted += 1;
        self.phase_applied += candidate.size as u64;
        // Its own proposal assumed it would fail: undone, or the sites left that share
        // a key with the ones it applied (the same item text in a long list) would
        // start the next search as if they had failed with it.
        for &(i, p) in candidate.before.iter().rev() {
            self.pdd.set_probability(i, p);
        }
        let learned = (!self.forget).then(|| self.learned());
        self.best_len = candidate.source.chars().count();
        self.written = Arc::new(Written::of(&candidate.source, &mut body));
        self.best = candidate.source;
        self.best_ast = body;
        self.best_starts = candidate.starts;
        if self.best_len <= self.smallest_len {
            self.smallest = self.best.clone();
            self.smallest_len = self.best_len;
        }
        self.stats.best_bytes = self.best.len();
        self.stats.best_lines = self.best.lines().count();
        self.exhausted = false;
        self.refresh_sites();
        if let Some(learned) = learned {
            self.seed(Some(&learned), !self.fresh_phases);
        }
        true
    }

    /// The verdict for candidate `id` when its run hung: it ran out of time, or was
    /// killed as stuck. It is uninteresting, and if it rewrote one site, that site is
    /// remembered for later rounds (see `Options::forget_hangs`): a hang costs the
    /// whole time limit, dozens of ordinary runs.
    pub fn report_hung(&mut self, id: u64) {
        let key = self.pending.iter().find(|p| p.id == id).and_then(|p| p.key);
        if let Some(key) = key.filter(|_| !self.forget_hangs) {
            self.hung.insert(key);
        }
        self.report(id, false);
    }

    /// This reduction as it will be once the candidates `failed` are reported
    /// uninteresting and then `accepted` (if any) interesting, in that order: what a
    /// host running several candidates at once proposes from while one of `failed`
    /// still runs, either behind a success that waits on it or at a phase's end
    /// (where [`Reducer::next_candidate`] waits for every verdict). Should every one
    /// of `failed` indeed fail, the copy is exactly this reduction after those
    /// reports and goes on in its place; should one succeed, the copy is dropped. The
    /// copy numbers its candidates on from this one's, and this one skips past them,
    /// so an id never names two candidates. `None` if `accepted` is not out or is not
    /// accepted.
    pub fn speculate(&mut self, failed: &[u64], accepted: Option<u64>) -> Option<Reducer> {
        let mut copy = self.clone();
        for &id in failed {
            copy.report(id, false);
        }
        if let Some(id) = accepted {
            if !copy.report(id, true) {
                return None;
            }
        }
        // Ids the copy may hand out are never reused here.
        copy.next_id = self.next_id;
        self.next_id += ID_BLOCK;
        Some(copy)
    }

    /// Goes on as `copy`, made by [`Reducer::speculate`] from this reduction, whose
    /// assumptions all held. The hangs reported here since are kept: the candidates
    /// the copy assumed to fail were reported here with their real verdicts.
    pub fn adopt(&mut self, copy: Reducer) {
        let hung = std::mem::take(&mut self.hung);
        *self = copy;
        self.hung.extend(hung);
    }

    /// What the current search learned, by site key: the sites it tried. One never
    /// tried gets its prior in the next search, which may have grown since.
    fn learned(&self) -> FastMap<SiteKey, f64> {
        self.keys
            .iter()
            .enumerate()
            .filter(|&(i, _)| self.pdd.probability(i) != self.start[i])
            .map(|(i, &key)| (key, self.pdd.probability(i)))
            .collect()
    }

    /// The current best program; once the reduction is done, the smallest interesting
    /// program seen (a canonicalizing phase may have grown the last one).
    pub fn best(&self) -> &str {
        if self.is_done() {
            &self.smallest
        } else {
            &self.best
        }
    }

    /// Whether nothing is left to propose and no candidate is out.
    pub fn is_done(&self) -> bool {
        self.exhausted && self.pending.is_empty()
    }

    pub fn stats(&self) -> Stats {
        let mut stats = self.stats.clone();
        if self.is_done() {
            stats.best_bytes = self.smallest.len();
            stats.best_lines = self.smallest.lines().count();
        }
        stats
    }

    /// Messages for the user about the input (e.g. an unterminated freeze block).
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }
}

/// How many candidate ids a speculative copy of a reducer may hand out (see
/// [`Reducer::speculate`]): more than any one speculation proposes.
const ID_BLOCK: u64 = 1 << 32;

/// Where a later round starts a site that hung alone (see `Options::forget_hangs`):
/// below every rewrite's prior, so it is selected alone, after the others.
const HUNG_PRIOR: f64 = 0.05;

/// How much of the first line of a site's statement its key holds (see [`SiteKey`]).
const OWNER_PREFIX: usize = 80;

/// Identifies a site across accepted candidates: the rewrite, the text of its node,
/// the first line of the statement holding it up to its first `(` and at most
/// [`OWNER_PREFIX`] bytes (so `x` in
/// `def f(x)` and in `def g(x)` differ, but a statement of `f`'s body stays the same
/// site when `f` loses a parameter), and how many earlier sites share all three.
type SiteKey = (Rewrite, u64, u32);

fn site_keys(map: &SiteMap, text: &str) -> Vec<SiteKey> {
    let slice = |node: u32| {
        let range = map.ranges[node as usize];
        text.get(usize::from(range.start())..usize::from(range.end()))
            .unwrap_or("")
    };
    let mut counts: FastMap<(Rewrite, u64), u32> = FastMap::default();
    map.sites
        .iter()
        .map(|site| {
            let owner = slice(map.owners[site.node as usize]);
            // Up to its first parenthesis: a `def` line changes whenever a parameter
            // goes (or canonicalize adds `*args, **kwargs`), and what was learned
            // about the statements of its body should not go with it.
            // At most OWNER_PREFIX bytes: a data table's statement can be one line of
            // tens of kilobytes, read once per site.
            let mut end = owner.len().min(OWNER_PREFIX);
            while !owner.is_char_boundary(end) {
                end -= 1;
            }
            let owner_line = &owner[..end];
            let owner_line = owner_line
                .split(['\n', '(', '[', '{'])
                .next()
                .unwrap_or(owner_line);
            let mut h = FastHasher::default();
            slice(site.node).hash(&mut h);
            owner_line.hash(&mut h);
            let base = (site.rewrite, h.finish());
            let n = counts.entry(base).or_insert(0);
            *n += 1;
            (base.0, base.1, *n)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The keys of the `stmt-remover` sites of `source`, by the text of their node.
    fn statement_keys(source: &str) -> FastMap<String, SiteKey> {
        let body = parse::parse_module(source).expect("parses");
        let map = find_sites(&body, RewriteSet::of(&[Rewrite::StmtRemover]), false, &[]);
        site_keys(&map, source)
            .into_iter()
            .zip(&map.sites)
            .map(|(key, site)| {
                let range = map.ranges[site.node as usize];
                (source[range].to_string(), key)
            })
            .collect()
    }

    #[test]
    fn adopting_a_speculative_copy_keeps_the_hangs_reported_since() {
        let source = "a = 1\nb = 2\nc = 3\nraise ValueError('x')\n";
        let mut reducer = Reducer::new(source, Options::default()).expect("parses");
        let alone = loop {
            let c = reducer.next_candidate().expect("a candidate");
            if c.sites == 1 {
                break c;
            }
            reducer.report(c.id, false);
        };
        // The host goes on from a copy in which `alone` failed; then it hangs.
        let copy = reducer
            .speculate(&[alone.id], None)
            .expect("a speculative copy");
        assert!(copy.hung.is_empty());
        reducer.report_hung(alone.id);
        assert_eq!(reducer.hung.len(), 1);
        reducer.adopt(copy);
        assert_eq!(reducer.hung.len(), 1, "the hang outlives the adoption");
    }

    #[test]
    fn a_statement_stays_the_same_site_when_its_def_loses_a_parameter() {
        let before = statement_keys("def f(a, b, *args, **kwargs):\n    x = a\n    return x\n");
        let after = statement_keys("def f(a):\n    x = a\n    return x\n");
        assert_eq!(before["x = a"], after["x = a"]);
        assert_eq!(before["return x"], after["return x"]);
        // The same statement in another function is another site.
        let other = statement_keys("def g(a):\n    x = a\n    return x\n");
        assert_ne!(after["x = a"], other["x = a"]);
    }
}
