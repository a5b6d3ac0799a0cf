// What both backends do with a run lost on the way (a runner worker that died under
// its candidate, a launch whose connection dropped): run it again after a back-off, so
// the search is the one a run without the fault makes; drop a job that cannot run
// anything any more; stop the reduction when no job is left.

import { AutoddError } from '../errors.js';
import { runResult } from './result.js';

/** How many times a lost run is made again… */
export const RESTARTS = 3;
/** …after this long, doubled each time. */
export const RESTART_BACKOFF_MS = 250;

/** @typedef {import('./result.js').RunResult} RunResult */

/**
 * One try at a run: its result, and whether it was lost on the way, and if so whether
 * it got as far as starting the candidate.
 * @typedef {{ result: RunResult, lost?: { started: boolean } }} Try
 */

/**
 * Tries a run until a try is not lost, at most RESTARTS times more.
 * @param {(retry: number) => Promise<Try>} attempt given 0 for the first try, then 1, 2…
 * @param {object} options
 * @param {AbortSignal} [options.signal] aborted: stop trying (outcome `cancelled`)
 * @param {() => boolean} options.closed the backend was closed: stop trying
 * @param {() => void} [options.onRetry] called before each try again
 * @returns {Promise<{ result: RunResult, jobLost: boolean }>} `jobLost`: every try was
 *   lost, one before it started its candidate: the job, not the candidate, is at fault.
 *   Each try started and then lost is the candidate's doing (it kills its parent, say):
 *   that is its verdict, a crash.
 */
export async function untilNotLost(attempt, { signal, closed, onRetry }) {
  const cancelled = () => ({ result: runResult({ outcome: 'cancelled', ms: 0 }), jobLost: false });
  let startedEachTime = true;
  /** @type {RunResult | undefined} */
  let result;
  for (let i = 0; i <= RESTARTS; i++) {
    if (i > 0) {
      await new Promise((resolve) => setTimeout(resolve, RESTART_BACKOFF_MS * 2 ** (i - 1)));
      if (signal?.aborted || closed()) return cancelled();
      onRetry?.();
    }
    const run = await attempt(i);
    if (!run.lost) return { result: run.result, jobLost: false };
    result = run.result;
    if (!run.lost.started) startedEachTime = false;
  }
  if (signal?.aborted || closed()) return cancelled();
  return { result: /** @type {RunResult} */ (result), jobLost: !startedEachTime };
}

/**
 * What a backend says about its jobs' starts, held back until a job has run something:
 * when none ever does (a refused key on every host), the one error that the reduction
 * stops with says it all, and a warning for each job before it would only repeat it.
 */
export class JobWarnings {
  /** @param {(message: string) => void} onWarning */
  constructor(onWarning) {
    this.onWarning = onWarning;
    /** Whether a job ran something: warnings go out at once. */
    this.open = false;
    /** @type {string[]} */
    this.held = [];
  }

  /** @param {string} message */
  warn(message) {
    if (this.open) this.onWarning(message);
    else this.held.push(message);
  }

  /** A job ran something: the warnings held so far go out. */
  release() {
    this.open = true;
    for (const message of this.held.splice(0)) this.onWarning(message);
  }
}

/**
 * Job `slot` as messages name it: `job 2`, or with its host `job 2 (gpu1)`.
 * @param {import('../launcher.js').Launcher | undefined} launcher
 * @param {number} slot
 */
export function jobName(launcher, slot) {
  const host = launcher?.host(slot);
  return `job ${slot + 1}${host ? ` (${host})` : ''}`;
}

/**
 * Drops job `slot`, which cannot run candidates any more, with a warning, when other
 * jobs are left. With none left, going on would turn every later candidate into a
 * crash, a verdict the fault made: the reduction stops (`workers-lost`), with the
 * smallest program found so far in OUTPUT; unless no job ever ran anything (a refused
 * key, a wrong host), which the original's failed check says better.
 * @param {object} backend
 * @param {Set<number>} backend.dropped the jobs dropped so far; `slot` joins them
 * @param {{ size: number }} backend.slots all the jobs
 * @param {import('../launcher.js').Launcher} [backend.launcher] names the job's host
 * @param {JobWarnings} backend.jobWarnings
 * @param {boolean} everRan whether any job ever got as far as running a candidate
 * @param {number} slot
 * @param {string} why what it lost, and what the last try said (`its worker died and
 *   could not be started again (…)`)
 * @returns {boolean} whether it was dropped (false: the last job, which never ran
 *   anything: give the candidate the crash)
 */
export function dropJob({ dropped, slots, launcher, jobWarnings }, everRan, slot, why) {
  const job = jobName(launcher, slot);
  if (slots.size - dropped.size <= 1) {
    if (!everRan) return false;
    throw new AutoddError('workers-lost', `${job}: ${why}, and no other job is left to run candidates`);
  }
  dropped.add(slot);
  jobWarnings.warn(`${job} dropped: ${why}`);
  return true;
}
