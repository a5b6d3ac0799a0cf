// The verdict-relevant facts of one run, shared by both backends.

import os from 'node:os';

/**
 * @typedef {'exited' | 'signaled' | 'timeout' | 'stuck' | 'cancelled' | 'crashed'} Outcome
 *
 * @typedef {object} RunResult
 * @property {boolean} found MSG occurred in stdout or stderr of a run that was not killed
 * @property {Outcome} outcome how the run ended; `stuck`: killed (runner only) because
 *   every thread waited with no timeout and nothing could wake it; `crashed` means the
 *   backend failed (a worker died, Python could not start), not the candidate
 * @property {number | null} exitCode
 * @property {string | null} signal e.g. `SIGSEGV` when the candidate died of a signal
 * @property {string} stdoutTail the last few KiB of stdout
 * @property {string} stderrTail the last few KiB of stderr
 * @property {number} ms wall time of the run
 * @property {string} [error] why the backend failed, for `crashed`
 * @property {boolean} [compiledAhead] runner: it ran code compiled before its request (see
 *   `RunnerBackend.prepare`)
 */

/** @type {Map<number, string>} */
const SIGNAL_NAMES = new Map(Object.entries(os.constants.signals).map(([name, number]) => [number, name]));

/**
 * @param {number | null | undefined} number
 * @returns {string | null}
 */
export function signalName(number) {
  if (number === null || number === undefined) return null;
  return SIGNAL_NAMES.get(number) ?? `signal ${number}`;
}

/**
 * @param {Partial<RunResult> & { outcome: Outcome, ms: number }} fields
 * @returns {RunResult}
 */
export function runResult(fields) {
  const killed = fields.outcome === 'timeout' || fields.outcome === 'stuck' || fields.outcome === 'cancelled';
  return {
    exitCode: null,
    signal: null,
    stdoutTail: '',
    stderrTail: '',
    ...fields,
    // A killed run or a failed backend never makes a candidate interesting.
    found: Boolean(fields.found) && !killed && fields.outcome !== 'crashed',
  };
}
