// The verdict-relevant facts of one run, shared by both backends.

import os from 'node:os';

/**
 * @typedef {'exited' | 'signaled' | 'timeout' | 'stuck' | 'cancelled' | 'crashed'} Outcome
 *
 * @typedef {object} RunResult
 * @property {boolean} found MSG occurred in what the program wrote to stdout or stderr
 *   itself (not counting the source lines Python quotes in a traceback, a SyntaxError or
 *   a warning), in a run that was not killed
 * @property {boolean} foundAnywhere MSG occurred in stdout or stderr, quoted source lines
 *   included, in a run that was not killed
 * @property {string | null} exception the exception type of the last traceback (on
 *   stderr, else on stdout), as Python prints it (`ValueError`, `json.decoder.JSONDecodeError`)
 * @property {string | null} msgLine the first line of the program's own output holding MSG
 * @property {Outcome} outcome how the run ended; `stuck`: killed (runner only) because
 *   every thread waited with no timeout and nothing could wake it; `crashed` means the
 *   backend failed (a worker died, Python could not start), not the candidate
 * @property {number | null} exitCode
 * @property {string | null} signal e.g. `SIGSEGV` when the candidate died of a signal
 * @property {string} stdoutTail the last few KiB of stdout
 * @property {string} stderrTail the last few KiB of stderr
 * @property {number} ms wall time of the run
 * @property {string} [error] why the backend failed, for `crashed`
 * @property {string} [unisolatedThere] through a launcher: why the program ran unisolated
 *   on the other side, where it was to be isolated
 * @property {string[]} [refusedThere] through a launcher: the folders the program saw
 *   read-only on the other side (the kernel there refused their overlay)
 * @property {boolean} [unstarted] `crashed` before the program started: a launcher that
 *   failed (a host unknown or down, a refused key), a worker that would not start
 * @property {boolean} [compiledAhead] runner: it ran code compiled before its request (see
 *   `RunnerBackend.prepare`)
 */

/** @type {Map<number, string>} */
/**
 * Each signal's name as Node names a child's `signalCode`: where two names share a
 * number (SIGABRT and SIGIOT, SIGIO and SIGPOLL), the first listed, so a run the
 * runner reports and one Node reports (the final check) name one signal alike.
 */
const SIGNAL_NAMES = new Map();
for (const [name, number] of Object.entries(os.constants.signals)) {
  if (!SIGNAL_NAMES.has(number)) SIGNAL_NAMES.set(number, name);
}

/**
 * @param {number | null | undefined} number
 * @returns {string | null}
 */
export function signalName(number) {
  if (number === null || number === undefined) return null;
  return SIGNAL_NAMES.get(number) ?? `signal ${number}`;
}

/**
 * How a run failed, in a few words: the signal that killed it, else its exception type
 * (with its exit status when that is not an uncaught exception's 1), else its exit
 * status (`killed by SIGSEGV`, `ValueError`, `KeyError, then exit status 0`,
 * `exit status 2`); for `--same-error` two runs fail the same way when these are equal.
 * A traceback that was only printed (logged) does not hide a crash or an exit status.
 * @param {RunResult} run
 * @returns {string}
 */
export function failureKind(run) {
  if (run.outcome === 'signaled') return `killed by ${run.signal}`;
  if (run.exception) {
    return run.outcome === 'exited' && run.exitCode !== 1
      ? `${run.exception}, then exit status ${run.exitCode}`
      : run.exception;
  }
  if (run.outcome === 'exited') return `exit status ${run.exitCode}`;
  return run.outcome;
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
    exception: null,
    msgLine: null,
    ...fields,
    // A killed run or a failed backend never makes a candidate interesting.
    found: Boolean(fields.found) && !killed && fields.outcome !== 'crashed',
    foundAnywhere: Boolean(fields.foundAnywhere) && !killed && fields.outcome !== 'crashed',
  };
}
