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
 * @property {(candidate: Candidate, signal: AbortSignal) => Promise<boolean>} evaluate
 *   whether a candidate is interesting; `signal` aborts when its verdict is no longer needed
 * @property {number} jobs how many candidates run at once
 * @property {boolean} [lookahead] propose the next candidate while the current ones run
 *   (default true; false proposes only when a slot is free, for comparisons)
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
 * Runs a reduction to its end (or until `signal` aborts).
 * @param {Reducer} reducer
 * @param {DriveOptions} options
 * @returns {Promise<DriveResult>}
 */
export async function drive(reducer, { evaluate, jobs, lookahead = true, onProgress, onAccept, signal }) {
  const started = performance.now();
  /**
   * @typedef {{ candidate: Candidate, verdict?: boolean, error?: unknown }} Settled
   * @type {Map<number, { controller: AbortController, settled: Promise<Settled>, stale: boolean }>}
   */
  const inflight = new Map();
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
  /**
   * One candidate proposed ahead, while the runs in flight go on, so the engine's
   * time overlaps them; it is dispatched when a slot frees up. The engine never
   * proposes across a phase boundary ahead of verdicts, so this changes nothing in
   * the search (an accept makes it stale like the candidates in flight).
   * @type {Candidate | undefined}
   */
  let ahead;
  const aborted = new Promise((resolve) => {
    if (signal?.aborted) resolve(undefined);
    signal?.addEventListener('abort', () => resolve(undefined), { once: true });
  });

  const cancelAll = async () => {
    for (const entry of inflight.values()) entry.controller.abort();
    await Promise.all([...inflight.values()].map((entry) => entry.settled));
    inflight.clear();
  };

  /**
   * Candidates proposed and not yet reported, in the order they were proposed: a
   * verdict is reported only once every earlier one has been, so a faster second run
   * never overtakes the first and `-j N` follows the same search as `-j 1`.
   * @type {{ candidate: Candidate, verdict?: boolean }[]}
   */
  let order = [];

  try {
    while (!signal?.aborted) {
      // A success waiting on an earlier verdict will most likely be accepted, which
      // would make anything started now stale: wait instead (a run that hangs
      // holds it up to the time limit).
      const successWaits = order.some((o) => o.verdict === true);
      while (inflight.size < jobs && !successWaits) {
        const candidate = ahead ?? timed(() => reducer.nextCandidate());
        ahead = undefined;
        if (!candidate) break;
        const controller = new AbortController();
        running += 1;
        const settled = Promise.resolve()
          .then(() => evaluate(candidate, controller.signal))
          .then(
            (verdict) => ({ candidate, verdict: verdict === true }),
            (error) => ({ candidate, error }),
          )
          .finally(() => {
            running -= 1;
          });
        inflight.set(candidate.id, { controller, settled, stale: false });
        order.push({ candidate });
      }
      // Nothing in flight and nothing to propose: the engine is done.
      if (inflight.size === 0) break;
      if (lookahead && !ahead && !successWaits) {
        // Let the evaluations just started hand their candidates over first.
        await new Promise((resolve) => setImmediate(resolve));
        if (running > 0 && !signal?.aborted) ahead = timed(() => reducer.nextCandidate());
      }

      const settled = await Promise.race([aborted, ...[...inflight.values()].map((entry) => entry.settled)]);
      if (!settled) break;
      const entry = inflight.get(settled.candidate.id);
      inflight.delete(settled.candidate.id);
      if (settled.error !== undefined) throw settled.error;
      // A stale candidate was cancelled: its verdict means nothing.
      if (entry?.stale) continue;
      const slot = order.find((o) => o.candidate.id === settled.candidate.id);
      if (slot) slot.verdict = Boolean(settled.verdict);

      while (order.length > 0 && order[0].verdict !== undefined) {
        const head = /** @type {{ candidate: Candidate, verdict: boolean }} */ (order.shift());
        const { candidate, verdict } = head;
        tried += 1;
        const accepted = timed(() => reducer.report(candidate.id, verdict));
        // The counters cross the wasm boundary only when someone reads them (a quiet
        // run never does between accepted candidates).
        /** @type {Stats | undefined} */
        let stats;
        const readStats = () => (stats ??= timed(() => reducer.stats()));
        /** @type {Progress} */
        const progress = {
          get stats() {
            return readStats();
          },
          tried,
          elapsedMs: performance.now() - started,
        };
        if (accepted) {
          // Every later candidate assumed this one fails: they are all stale.
          for (const other of inflight.values()) {
            other.stale = true;
            other.controller.abort();
          }
          order = [];
          ahead = undefined;
          const step = {
            id: candidate.id,
            phase: candidate.phase,
            rewrites: candidate.rewrites,
            sites: candidate.sites,
            bytes: readStats().bestBytes,
            lines: readStats().bestLines,
            elapsedMs: progress.elapsedMs,
          };
          steps.push(step);
          progress.accepted = step;
          await onAccept?.(
            timed(() => reducer.best()),
            step,
          );
        }
        onProgress?.(progress);
      }
    }
  } finally {
    await cancelAll();
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
