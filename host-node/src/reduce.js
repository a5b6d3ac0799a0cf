// The one driver of the wasm engine in Node, shared by `reduce()` (a JS predicate),
// `reducePython()` and the CLI: it carries out what the engine's scheduler asks (run
// a candidate, cancel one, report a verdict) and tells it when each run ends.

import { AutoddError, fromEngine } from './errors.js';
import { loadEngine, reloadEngine } from './engine.js';

/** @typedef {import('../pkg/autodd_wasm.js').Reducer} Reducer */
/** @typedef {import('../pkg/autodd_wasm.js').Candidate} Candidate */
/** @typedef {import('../pkg/autodd_wasm.js').Stats} Stats */
/** @typedef {import('../pkg/autodd_wasm.js').ReducerOptions} ReducerOptions */
/** @typedef {import('../pkg/autodd_wasm.js').Verdict} Verdict */
/** @typedef {import('../pkg/autodd_wasm.js').Action} Action */
/** @typedef {Extract<Action, { kind: 'report' }>} Report */

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
 * @property {number} id the candidate whose verdict this is
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
 * @property {boolean} [abandon] once `signal` aborts, return without waiting for the
 *   evaluations going (each got its abort): for predicates that may ignore it
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
  const engine = loadEngine();
  try {
    const reducer = new engine.Reducer(source, options);
    ENGINE_OF.set(reducer, engine);
    return reducer;
  } catch (err) {
    if (stackOverflow(err)) {
      // The engine recurses once per level of the syntax tree, and ran out of stack.
      reloadEngine();
      throw new AutoddError(
        'bad-input',
        'the program nests expressions or statements deeper than autodd can parse ' +
          '(an expression of thousands of terms); split the deepest one',
      );
    }
    throw fromEngine(err);
  }
}

/**
 * The engine instance each reducer was made by: its scheduler must come from the same
 * one, also after `reloadEngine()` made a new instance for later reducers.
 * @type {WeakMap<Reducer, ReturnType<typeof loadEngine>>}
 */
const ENGINE_OF = new WeakMap();

/**
 * Whether the engine ran out of stack: V8's limit (a RangeError) or the wasm stack's
 * end (an access below its memory). Not an engine panic (`unreachable`).
 * @param {unknown} err
 */
function stackOverflow(err) {
  return (
    (err instanceof RangeError && /call stack/i.test(err.message)) ||
    (err instanceof WebAssembly.RuntimeError && /out of bounds/.test(err.message))
  );
}

/**
 * Why a candidate's `signal` aborts: its verdict is no longer needed. One shared
 * reason, as `abort()` without one builds a DOMException, stack trace and all.
 */
const STALE = Object.freeze(new Error('the candidate went stale'));

/**
 * Runs a reduction to its end (or until `signal` aborts): the core's `Scheduler`
 * decides what runs, in which order verdicts count, and when to speculate (see
 * crates/autodd-core/src/schedule.rs); this loop only runs candidates, waits for
 * them and times the engine.
 * @param {Reducer} reducer
 * @param {DriveOptions} options
 * @returns {Promise<DriveResult>}
 */
export async function drive(
  reducer,
  {
    evaluate,
    jobs,
    lookahead = true,
    speculate = true,
    prepare,
    onProgress,
    onAccept,
    signal,
    abandon = false,
  },
) {
  const started = performance.now();
  const { Scheduler } = ENGINE_OF.get(reducer) ?? loadEngine();
  const scheduler = new Scheduler(reducer, { jobs, lookahead, speculate });
  /** @typedef {{ id: number, verdict?: Verdict, error?: unknown }} Settled */
  /**
   * The runs going, by candidate id: what aborts each, and when it settles.
   * @type {Map<number, { controller: AbortController, settled: Promise<void> }>}
   */
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
  const aborted = new Promise((resolve) => {
    if (signal?.aborted) resolve(undefined);
    signal?.addEventListener('abort', () => resolve(undefined), { once: true });
  });

  /** @param {Candidate} candidate */
  const run = (candidate) => {
    const controller = new AbortController();
    running += 1;
    const settled = Promise.resolve()
      .then(() => evaluate(candidate, controller.signal))
      .then(
        (verdict) => ({
          id: candidate.id,
          verdict: /** @type {Verdict} */ (
            verdict === 'hung' ? 'hung' : verdict === true ? 'interesting' : 'uninteresting'
          ),
        }),
        (error) => ({ id: candidate.id, error }),
      )
      .then((/** @type {Settled} */ result) => {
        running -= 1;
        finished.push(result);
        wake?.();
      });
    inflight.set(candidate.id, { controller, settled });
  };
  /** Carries out the scheduler's actions, in order. @param {Action[]} actions */
  const perform = async (actions) => {
    for (const action of actions) {
      if (action.kind === 'run') run(action.candidate);
      else if (action.kind === 'cancel') inflight.get(action.id)?.controller.abort(STALE);
      else await reported(action);
    }
  };
  /** Counts a reported verdict and tells `onAccept` and `onProgress`. @param {Report} report */
  const reported = async ({ id, phase, rewrites, sites, accepted }) => {
    tried += 1;
    // The counters cross the wasm boundary only when someone reads them (a quiet run
    // never does between accepted candidates).
    /** @type {Stats | undefined} */
    let stats;
    /** @type {Progress} */
    const progress = {
      id,
      get stats() {
        return (stats ??= timed(() => scheduler.stats()));
      },
      tried,
      elapsedMs: performance.now() - started,
    };
    if (accepted) {
      const { source, bytes, lines } = accepted;
      /** @type {AcceptedStep} */
      const step = { id, phase, rewrites, sites, bytes, lines, elapsedMs: progress.elapsedMs };
      steps.push(step);
      progress.accepted = step;
      await onAccept?.(source, step);
    }
    onProgress?.(progress);
  };

  try {
    while (!signal?.aborted) {
      await perform(timed(() => scheduler.fill()));
      // Nothing running and nothing to propose: the reduction is over.
      if (inflight.size === 0) break;
      if (lookahead) {
        // Let the evaluations just started hand their candidates over first.
        await new Promise((resolve) => setImmediate(resolve));
        if (running > 0 && !signal?.aborted) {
          const candidate = timed(() => scheduler.proposeAhead());
          if (candidate) prepare?.(candidate);
        }
      }
      if (finished.length === 0) {
        await Promise.race([aborted, new Promise((resolve) => (wake = () => resolve(undefined)))]);
        wake = undefined;
      }
      if (signal?.aborted) break;
      for (const { id, verdict, error } of finished.splice(0)) {
        inflight.delete(id);
        if (error !== undefined) throw error;
        await perform(timed(() => scheduler.finished(id, /** @type {Verdict} */ (verdict))));
      }
    }
  } finally {
    for (const action of scheduler.cancelAll()) {
      if (action.kind === 'cancel') inflight.get(action.id)?.controller.abort(STALE);
    }
    // Runs end before the reduction does (no process outlives it), unless the caller's
    // evaluations may be left to themselves once `signal` aborts (`abandon`).
    if (!(abandon && signal?.aborted))
      await Promise.all([...inflight.values()].map(({ settled }) => settled));
    inflight.clear();
  }
  try {
    return {
      source: scheduler.best(),
      stats: scheduler.stats(),
      tried,
      steps,
      interrupted: Boolean(signal?.aborted) && !scheduler.isDone(),
      engineMs,
      engineOutsideRunsMs,
    };
  } finally {
    scheduler.free();
  }
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
  // Each job has a folder, a worker and a process at a time: a typo's billion jobs
  // would fill the disk's inodes before the first run.
  if (jobs > MAX_JOBS) throw new AutoddError('usage', `jobs must be at most ${MAX_JOBS}, not ${jobs}`);
  return jobs;
}

/**
 * Validates the `signal` option: an AbortSignal, or one of another realm or polyfill.
 * @param {unknown} signal
 */
export function checkSignal(signal) {
  const like = /** @type {any} */ (signal);
  if (
    signal !== undefined &&
    !(signal instanceof AbortSignal) &&
    !(typeof like?.aborted === 'boolean' && typeof like.addEventListener === 'function')
  ) {
    throw new AutoddError('usage', 'signal must be an AbortSignal');
  }
}

/**
 * Validates that an API function got its options object.
 * @param {unknown} options
 * @param {string} name the function
 * @param {string} fields the ones it needs, for the message
 */
export function checkOptions(options, name, fields) {
  if (typeof options !== 'object' || options === null) {
    throw new AutoddError('usage', `${name}() takes an options object ({ ${fields}, ... })`);
  }
}

/** The most jobs a reduction takes, `forceJobs` or not. */
export const MAX_JOBS = 1024;
