// The one driver of the wasm engine, shared by `reduce()` (a JS predicate),
// `reducePython()` and the CLI: pull candidates, run up to `jobs` at once, report
// verdicts, and cancel the candidates in flight once one of them is accepted
// (they were made from a program that is no longer the best).

import { AutoddError, fromEngine } from './errors.js';
import { loadEngine } from './engine.js';

/** @typedef {import('../pkg/autodd_wasm.js').Reducer} Reducer */
/** @typedef {import('../pkg/autodd_wasm.js').Candidate} Candidate */
/** @typedef {import('../pkg/autodd_wasm.js').Stats} Stats */
/** @typedef {import('../pkg/autodd_wasm.js').ReducerOptions} ReducerOptions */

/**
 * A candidate that was accepted: the new best program.
 * @typedef {object} AcceptedStep
 * @property {number} id
 * @property {string} phase
 * @property {string[]} rewrites
 * @property {number} sites
 * @property {number} bytes size of the new best program
 * @property {number} lines
 * @property {number} elapsedMs since the reduction started
 */

/**
 * @typedef {object} Progress
 * @property {Stats} stats the engine's counters (fetched from the engine when first read)
 * @property {number} tried candidates run to a verdict so far
 * @property {number} elapsedMs
 * @property {AcceptedStep} [accepted] set when this report accepted a candidate
 */

/**
 * @typedef {object} DriveOptions
 * @property {(candidate: Candidate, signal: AbortSignal) => Promise<boolean | 'hung'>} evaluate
 *   whether a candidate is interesting (`'hung'`: it is not, and its run ran out of time or
 *   was stuck); `signal` aborts when its verdict is no longer needed
 * @property {number} jobs how many candidates run at once
 * @property {boolean} [lookahead] propose the next candidate while the current ones run
 *   (default true; false proposes only when a slot is free, for comparisons)
 * @property {boolean} [speculate] when a success waits on an earlier candidate still
 *   running, or a phase's end on the candidates out, go on from a copy of the engine
 *   in which those failed (default true; false waits, for comparisons)
 * @property {(candidate: Candidate) => void} [prepare] told of each candidate proposed
 *   ahead, which will likely be evaluated next (a host may get ready to run it)
 * @property {(progress: Progress) => void} [onProgress] after each verdict
 * @property {(best: string, step: AcceptedStep) => Promise<void> | void} [onAccept]
 *   after each accepted candidate, before the next verdict is reported
 * @property {AbortSignal} [signal] stops the reduction, keeping the best so far
 */

/**
 * @typedef {object} DriveResult
 * @property {string} source the best program
 * @property {Stats} stats
 * @property {number} tried
 * @property {AcceptedStep[]} steps
 * @property {boolean} interrupted `signal` stopped the reduction before it was done
 * @property {number} engineMs time spent inside the engine's calls (nextCandidate, report,
 *   stats, best)
 * @property {number} engineOutsideRunsMs the part of `engineMs` spent while no candidate
 *   was being evaluated: what the engine adds to the wall time (the next candidate is
 *   proposed while the current ones run)
 */

/**
 * A reducer for `source`; engine errors (a syntax error, an empty program) become
 * `AutoddError`s.
 * @param {string} source
 * @param {ReducerOptions} [options]
 * @returns {Reducer}
 */
export function createReducer(source, options) {
  const { Reducer } = loadEngine();
  try {
    return new Reducer(source, options);
  } catch (err) {
    throw fromEngine(err);
  }
}

/**
 * A candidate handed to `evaluate`, from the moment it is proposed until its verdict
 * is reported (or it goes stale).
 * @typedef {object} Entry
 * @property {Candidate} candidate
 * @property {Line} line the reducer it was proposed by
 * @property {AbortController} controller
 * @property {boolean} stale its verdict no longer matters (it was cancelled)
 * @property {boolean} [verdict] once its run is over
 * @property {boolean} [hung] its run hung (see `evaluate`)
 */

/**
 * A reducer and its candidates out, in the order it proposed them: a verdict is
 * reported only once every earlier one has been, so a faster later run never
 * overtakes an earlier one and `-j N` follows the same search as `-j 1`.
 * @typedef {object} Line
 * @property {Reducer} reducer
 * @property {Entry[]} order
 */

/**
 * The best program after an accept, with its size.
 * @typedef {{ best: string, bytes: number, lines: number }} Best
 */

/**
 * A verdict a speculative line reported (and what it accepted, if anything), held
 * back until its assumptions prove true.
 * @typedef {{ entry: Entry, accepted?: Best }} Held
 */

/**
 * Why a candidate's `signal` aborts: its verdict is no longer needed. One shared
 * reason, as `abort()` without one builds a DOMException, stack trace and all.
 */
const STALE = Object.freeze(new Error('the candidate went stale'));

/**
 * Runs a reduction to its end (or until `signal` aborts).
 *
 * With several jobs, a success that finishes while an earlier candidate still runs
 * (typically one that hangs until its time limit) would hold every other slot idle:
 * its acceptance waits on that earlier verdict, and anything proposed meanwhile from
 * the current best would go stale. Instead the engine makes a copy in which the
 * earlier candidates failed and the success was accepted (`speculate`), and the
 * free slots run candidates proposed by the copy. The same goes for a phase's end,
 * where the engine proposes nothing until every verdict is in: the copy assumes the
 * candidates out all fail. When they do fail, as most do, the copy takes over
 * (`adopt`) with its verdicts already in; when one succeeds instead, the copy and
 * its candidates are dropped. Either way the search is the one `-j 1` makes.
 * @param {Reducer} reducer
 * @param {DriveOptions} options
 * @returns {Promise<DriveResult>}
 */
export async function drive(
  reducer,
  { evaluate, jobs, lookahead = true, speculate = true, prepare, onProgress, onAccept, signal },
) {
  const started = performance.now();
  /** @typedef {{ entry: Entry, verdict?: boolean | 'hung', error?: unknown }} Settled */
  /** @type {Map<Entry, Promise<void>>} */
  const inflight = new Map();
  /**
   * Runs that are over and not yet taken in, in the order they ended. The loop takes
   * them all in before it starts anything, so a success that ended at the same time
   * as a failure is never missed by the decision to start the next candidate.
   * @type {Settled[]}
   */
  const finished = [];
  /** Wakes the loop when a run ends. @type {(() => void) | undefined} */
  let wake;
  /** @type {AcceptedStep[]} */
  const steps = [];
  let tried = 0;
  let engineMs = 0;
  let engineOutsideRunsMs = 0;
  /** Evaluations started and not yet settled. */
  let running = 0;
  /**
   * Times one call into the engine.
   * @template T
   * @param {() => T} call
   * @returns {T}
   */
  const timed = (call) => {
    const start = performance.now();
    try {
      return call();
    } finally {
      const ms = performance.now() - start;
      engineMs += ms;
      if (running === 0) engineOutsideRunsMs += ms;
    }
  };
  /** @type {Line} */
  const main = { reducer, order: [] };
  /**
   * The speculative line, while `success` waits on earlier candidates of `main` (its
   * reducer is a copy in which they failed and `success` was accepted), or while the
   * main line waits at a phase's end for the verdicts of all its candidates out
   * (`success` undefined: a copy in which they all failed).
   * @type {{ line: Line, success?: Required<Held>, held: Held[] } | undefined}
   */
  let spec;
  /**
   * One candidate proposed ahead, while the runs in flight go on, so the engine's
   * time overlaps them; it is dispatched when a slot frees up. The engine never
   * proposes across a phase boundary ahead of verdicts, so this changes nothing in
   * the search (an accept makes it stale like the candidates in flight).
   * @type {{ candidate: Candidate, line: Line } | undefined}
   */
  let ahead;
  const aborted = new Promise((resolve) => {
    if (signal?.aborted) resolve(undefined);
    signal?.addEventListener('abort', () => resolve(undefined), { once: true });
  });

  /** @param {Candidate} candidate @param {Line} line */
  const dispatch = (candidate, line) => {
    /** @type {Entry} */
    const entry = { candidate, line, controller: new AbortController(), stale: false };
    running += 1;
    const settled = Promise.resolve()
      .then(() => evaluate(candidate, entry.controller.signal))
      .then(
        (verdict) => ({ entry, verdict: verdict === 'hung' ? verdict : verdict === true }),
        (error) => ({ entry, error }),
      )
      .then((/** @type {Settled} */ result) => {
        running -= 1;
        finished.push(result);
        wake?.();
      });
    inflight.set(entry, settled);
    line.order.push(entry);
  };
  /** Cancels `entries`: their verdicts will not be reported. @param {Entry[]} entries */
  const cancel = (entries) => {
    for (const entry of entries) {
      entry.stale = true;
      entry.controller.abort(STALE);
    }
  };
  const cancelAll = async () => {
    cancel([...inflight.keys()]);
    await Promise.all(inflight.values());
    inflight.clear();
  };

  /** Counts a reported verdict and tells `onProgress`. @param {AcceptedStep} [step] */
  const progressed = async (/** @type {string | undefined} */ best, step) => {
    tried += 1;
    // The counters cross the wasm boundary only when someone reads them (a quiet run
    // never does between accepted candidates).
    /** @type {Stats | undefined} */
    let stats;
    /** @type {Progress} */
    const progress = {
      get stats() {
        return (stats ??= timed(() => reducer.stats()));
      },
      tried,
      elapsedMs: performance.now() - started,
    };
    if (step) {
      step.elapsedMs = progress.elapsedMs;
      steps.push(step);
      progress.accepted = step;
      await onAccept?.(/** @type {string} */ (best), step);
    }
    onProgress?.(progress);
  };
  /** @param {Entry} entry @param {Best} size @returns {AcceptedStep} */
  const stepOf = ({ candidate }, { bytes, lines }) => ({
    id: candidate.id,
    phase: candidate.phase,
    rewrites: candidate.rewrites,
    sites: candidate.sites,
    bytes,
    lines,
    elapsedMs: 0,
  });

  /** The best program of reducer `r`, with its size. @param {Reducer} r @returns {Best} */
  const bestOf = (r) => {
    const stats = timed(() => r.stats());
    return { best: timed(() => r.best()), bytes: stats.bestBytes, lines: stats.bestLines };
  };
  /** The progress of one held verdict. @param {Held} held */
  const release = ({ entry, accepted }) => progressed(accepted?.best, accepted && stepOf(entry, accepted));

  /** The speculation's assumptions held: its line becomes the main one. */
  const adopt = async () => {
    const s = /** @type {NonNullable<typeof spec>} */ (spec);
    spec = undefined;
    timed(() => reducer.adopt(s.line.reducer));
    main.order = s.line.order;
    for (const entry of main.order) entry.line = main;
    for (const entry of inflight.keys()) if (entry.line === s.line) entry.line = main;
    if (ahead?.line === s.line) ahead.line = main;
    // The candidates assumed to fail were reported as their verdicts came in.
    if (s.success) await release(s.success);
    for (const held of s.held) await release(held);
  };
  /** An earlier candidate succeeded after all: the speculation is void. */
  const dropSpeculation = () => {
    const s = /** @type {NonNullable<typeof spec>} */ (spec);
    spec = undefined;
    cancel([...inflight.keys()].filter((entry) => entry.line === s.line));
    if (ahead?.line === s.line) ahead = undefined;
    s.line.reducer.free();
  };
  /**
   * Reports the verdicts at the front of `line` that are in, in order.
   * @param {Line} line
   */
  const report = async (line) => {
    while (line.order.length > 0 && line.order[0].verdict !== undefined) {
      const entry = /** @type {Entry} */ (line.order.shift());
      const verdict = /** @type {boolean} */ (entry.verdict);
      if (line === main && entry === spec?.success?.entry) {
        // Every candidate before it failed: the speculation held.
        await adopt();
        continue;
      }
      const accepted = timed(() => line.reducer.report(entry.candidate.id, verdict, entry.hung));
      /** @type {Best | undefined} */
      let size;
      if (accepted) {
        // One of the candidates the speculation assumed to fail did not.
        if (line === main && spec) dropSpeculation();
        // Every later candidate of the line assumed this one fails: all stale.
        cancel(line.order);
        line.order = [];
        if (ahead?.line === line) ahead = undefined;
        size = bestOf(line.reducer);
      }
      if (line === main) await progressed(size?.best, size && stepOf(entry, size));
      else spec?.held.push({ entry, accepted: size });
      // At a phase's end, every candidate the copy assumed to fail did.
      if (line === main && spec && !spec.success && main.order.length === 0) await adopt();
    }
  };
  /**
   * Goes on from a copy of the engine in which the main line's candidates `failed`
   * failed and `success`, if any, was accepted.
   * @param {Entry[]} failed
   * @param {Entry} [success]
   * @returns {boolean} whether the copy was made
   */
  const startSpeculation = (failed, success) => {
    const ids = failed.map((entry) => entry.candidate.id);
    const copy = timed(() => reducer.speculate(ids, success?.candidate.id));
    if (!copy) return false;
    spec = {
      line: { reducer: copy, order: [] },
      success: success && { entry: success, accepted: bestOf(copy) },
      held: [],
    };
    return true;
  };
  /**
   * A success of the main line waits on earlier candidates still running: go on
   * from a copy in which they failed.
   */
  const maybeSpeculate = () => {
    if (!speculate || spec) return;
    const at = main.order.findIndex((entry) => entry.verdict === true);
    if (at <= 0 || !startSpeculation(main.order.slice(0, at), main.order[at])) return;
    // Proposed on the assumption that the success fails: stale either way.
    cancel(main.order.slice(at + 1));
    main.order = main.order.slice(0, at + 1);
    if (ahead?.line === main) ahead = undefined;
  };
  /**
   * The main line has nothing to propose until its candidates out are all judged
   * (a phase's end): go on from a copy in which they all failed.
   */
  const speculateAtPhaseEnd = () => {
    if (!speculate || spec || main.order.length === 0) return false;
    if (main.order.some((entry) => entry.verdict === true)) return false;
    return startSpeculation(main.order);
  };

  try {
    while (!signal?.aborted) {
      const line = spec?.line ?? main;
      // A success waiting on an earlier verdict of the proposing line will most
      // likely be accepted, which would make anything started now stale: wait
      // instead (a run that hangs holds it up to the time limit).
      const successWaits = line.order.some((entry) => entry.verdict === true);
      let drained = false;
      while (inflight.size < jobs && !successWaits) {
        const candidate = ahead?.line === line ? ahead.candidate : timed(() => line.reducer.nextCandidate());
        ahead = undefined;
        if (!candidate) {
          drained = true;
          break;
        }
        dispatch(candidate, line);
      }
      if (drained && line === main && inflight.size < jobs && speculateAtPhaseEnd()) continue;
      // Nothing in flight and nothing to propose: the engine is done.
      if (inflight.size === 0) break;
      if (lookahead && !ahead && !successWaits) {
        // Let the evaluations just started hand their candidates over first.
        await new Promise((resolve) => setImmediate(resolve));
        if (running > 0 && !signal?.aborted) {
          const candidate = timed(() => line.reducer.nextCandidate());
          if (candidate) {
            ahead = { candidate, line };
            prepare?.(candidate);
          }
        }
      }

      if (finished.length === 0) {
        await Promise.race([aborted, new Promise((resolve) => (wake = () => resolve(undefined)))]);
        wake = undefined;
      }
      if (signal?.aborted) break;
      for (const { entry, verdict, error } of finished.splice(0)) {
        inflight.delete(entry);
        if (error !== undefined) throw error;
        // A stale candidate was cancelled: its verdict means nothing.
        if (entry.stale) continue;
        entry.verdict = verdict === true;
        entry.hung = verdict === 'hung';
        await report(entry.line);
        maybeSpeculate();
      }
    }
  } finally {
    await cancelAll();
    if (spec) dropSpeculation();
  }
  return {
    source: reducer.best(),
    stats: reducer.stats(),
    tried,
    steps,
    interrupted: Boolean(signal?.aborted) && !reducer.isDone(),
    engineMs,
    engineOutsideRunsMs,
  };
}

/**
 * Validates the `jobs` option.
 * @param {unknown} jobs
 * @returns {number}
 */
export function checkJobs(jobs) {
  if (jobs === undefined) return 1;
  if (typeof jobs !== 'number' || !Number.isInteger(jobs) || jobs < 1) {
    throw new AutoddError('usage', `jobs must be a positive integer, not ${String(jobs)}`);
  }
  return jobs;
}
