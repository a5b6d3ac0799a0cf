// What counts as reproducing, in one place: a run shows MSG in its own output (or
// anywhere, when quoted source lines count), and with `sameError` fails the way the
// original did. Also how the original's runs are judged before the reduction (the
// fallback to quoted lines, flakiness) and the messages when it does not reproduce.

import { failureKind } from './backends/result.js';
import { AutoddError } from './errors.js';

/** @typedef {import('./backends/result.js').RunResult} RunResult */
/** @typedef {import('../index.js').FailureInfo} FailureInfo */

const MIB = 1024 * 1024;

export class Oracle {
  /**
   * @param {object} options
   * @param {string} options.errMsg
   * @param {boolean} options.matchQuoted count MSG in quoted source lines too
   * @param {boolean} options.sameError require the original's kind of failure
   */
  constructor({ errMsg, matchQuoted, sameError }) {
    this.errMsg = errMsg;
    this.matchQuoted = matchQuoted;
    this.sameError = sameError;
    /** @type {string | undefined} the original's failureKind, once judged */
    this.originalKind = undefined;
  }

  /**
   * Whether a run reproduces.
   * @param {RunResult} run
   */
  reproduces(run) {
    return (
      (this.matchQuoted ? run.foundAnywhere : run.found) &&
      (!this.sameError || failureKind(run) === this.originalKind)
    );
  }

  /**
   * Judges the original's runs: falls back to counting quoted lines when the original
   * shows MSG only there (with a warning), records its kind of failure, and refuses a
   * flaky original unless runs are retried. Returns the runs that reproduced (none:
   * the caller reports that it does not reproduce).
   * @param {RunResult[]} checks
   * @param {number} retries
   * @param {(message: string) => void} warn
   * @returns {{ good: RunResult[], info: FailureInfo } | null}
   */
  judgeOriginal(checks, retries, warn) {
    const shown = checks.filter((r) => r.foundAnywhere);
    if (shown.length === 0) return null;
    if (!this.matchQuoted && !shown.some((r) => r.found)) {
      // The user chose a fragment of a quoted code line as MSG: only plain matching
      // can reproduce that.
      this.matchQuoted = true;
      warn(
        `${JSON.stringify(this.errMsg)} is only in source lines that Python quotes in the original's output, ` +
          'not in what it writes itself; quoted lines count for this run (--match-quoted-source)',
      );
    }
    let good = checks.filter((r) => (this.matchQuoted ? r.foundAnywhere : r.found));
    this.originalKind = failureKind(good[0]);
    // With sameError a run that shows MSG but fails another way does not reproduce.
    if (this.sameError) good = good.filter((r) => failureKind(r) === this.originalKind);
    if (good.length < checks.length) {
      if (retries === 1) throw flaky(this.errMsg, checks, good.length);
      warn(
        `the original reproduced in ${good.length} of ${checks.length} runs; ` +
          `each candidate runs up to ${retries} times before it counts as not reproducing`,
      );
    }
    return { good, info: failureInfo(good[0], this.matchQuoted, checks.length, good.length) };
  }
}

/**
 * What may have kept the original from reproducing here, as far as its output and
 * source show.
 * @param {RunResult} run its last run
 * @param {string} source
 * @param {{ stdin: boolean, preloaded: boolean, isolated: boolean, launched?: boolean }} setting
 * @returns {string[]}
 */
export function likelyCauses(run, source, setting) {
  const output = `${run.stdoutTail}\n${run.stderrTail}`;
  const hints = [];
  if (!setting.stdin && (/\bEOFError\b/.test(output) || /\binput\(|sys\.stdin/.test(source))) {
    hints.push('it may read its standard input, which is empty here: give one with --stdin FILE');
  }
  if (setting.launched && /\b(ModuleNotFoundError|FileNotFoundError)\b/.test(output)) {
    hints.push(
      'the other side has only the program and what --ship PATH sends: ship the modules and data it reads',
    );
  }
  if (setting.preloaded) {
    hints.push(
      'the runner runs it in a fork of a warm Python that imported its modules ahead: try --backend subproc, or --no-preload',
    );
  }
  if (
    /\bos\.(fork|spawn\w*|posix_spawn\w*)\(|\bmultiprocessing\b|\bPopen\(|start_new_session|daemon\s*=\s*True/.test(
      source,
    )
  ) {
    hints.push(
      'a process it starts that writes the message after the program exits is not heard: each run ends with all its processes',
    );
  }
  if (setting.isolated && /Read-only file system|EROFS/.test(output)) {
    hints.push('it writes outside the folders a run may write to: see --no-sandbox');
  }
  return hints;
}

/**
 * Where the interpreter refused to compile the program itself (its syntax is a newer
 * Python's, say), so that nothing of it ran: the error line and its line number; null
 * for any other run. Python reports that with a frame of the program's file that names
 * no function and no "Traceback" header (a SyntaxError the program raises by compiling
 * a string has both).
 * @param {RunResult} run
 * @param {string} fileName the program's file name, as the run named it
 * @returns {{ error: string, line: number } | null}
 */
export function uncompiled(run, fileName) {
  if (!['SyntaxError', 'IndentationError', 'TabError'].includes(run.exception ?? '')) return null;
  const text = run.stderrTail;
  if (text.includes('Traceback (most recent call last):')) return null;
  const frame = /^ {2}File "(?:[^\n]*\/)?([^\n/]*)", line (\d+)$/m.exec(text);
  const error = new RegExp(`^${run.exception}: .*$`, 'm').exec(text);
  if (!frame || frame[1] !== fileName || !error) return null;
  return { error: error[0], line: Number(frame[2]) };
}

/**
 * Whether a run ran to its end (it exited or died of a signal), rather than being
 * killed at a time limit, cancelled, or failing to start.
 * @param {RunResult} run
 */
export function ran(run) {
  return run.outcome === 'exited' || run.outcome === 'signaled';
}

/**
 * @param {RunResult} run one of the runs, the first that reproduced if any did
 * @param {boolean} matchQuoted whether MSG in quoted source lines counted
 * @param {number} runs
 * @param {number} reproduced
 * @returns {FailureInfo}
 */
export function failureInfo(run, matchQuoted, runs, reproduced) {
  return {
    kind: failureKind(run),
    exception: run.exception,
    msgLine: run.msgLine,
    ownOutput: run.found || !(matchQuoted && run.foundAnywhere),
    runs,
    reproduced,
  };
}

/** @param {string} text the last lines of a stream, indented, for a message */
function tailLines(text) {
  return text.trim() === ''
    ? '  (empty)'
    : text
        .trimEnd()
        .split('\n')
        .slice(-15)
        .map((l) => `  ${l}`)
        .join('\n');
}

/** @param {RunResult} run */
function outputOf(run) {
  return `stdout (last lines):\n${tailLines(run.stdoutTail)}\nstderr (last lines):\n${tailLines(run.stderrTail)}`;
}

/**
 * How a run ended, in a few words.
 * @param {RunResult} run
 * @param {number} timeout seconds
 */
function ending(run, timeout) {
  return {
    exited: `it exited with status ${run.exitCode}`,
    signaled: `it was killed by ${run.signal}`,
    timeout: `it did not finish within the ${timeout} s timeout`,
    stuck: 'it was stuck',
    cancelled: 'it was cancelled',
    crashed: `Python failed: ${run.error}`,
  }[run.outcome];
}

/**
 * How a second check of the original (another form of it, or another Python) failed
 * where it did not reproduce: having shown MSG, it failed another way (`--same-error`);
 * else MSG was missing.
 * @param {string} errMsg
 * @param {RunResult} run its last run
 * @param {FailureInfo} original how the original failed
 * @param {number} timeout seconds
 * @param {{ there: string, versus: string }} words where it ran (` there`, or empty),
 *   and the original's kind of failure as the sentence names it
 */
function failedOtherwise(errMsg, run, original, timeout, { there, versus }) {
  const shown = original.ownOutput ? run.found : run.foundAnywhere;
  return shown
    ? `it fails with ${failureKind(run)}${there}, ${versus}`
    : `${JSON.stringify(errMsg)} is not in its ${original.ownOutput ? 'own ' : ''}output${there} (${ending(run, timeout)})`;
}

/**
 * The original reproduces as its author wrote it but not as the engine prints it,
 * the text every candidate is a rewrite of: how it fails hangs on that text.
 * @param {string} errMsg
 * @param {RunResult} run the printed copy's last run
 * @param {FailureInfo} original how the original failed
 * @param {number} timeout seconds
 */
export function notReprinted(errMsg, run, original, timeout) {
  const what = failedOtherwise(errMsg, run, original, timeout, {
    there: '',
    versus: `the original with ${original.kind}`,
  });
  return new AutoddError(
    'not-reproduced',
    `the original reproduces, but not as autodd prints the copy it reduces (no comments, its own layout, ` +
      `f-strings and joined literals written its own way): ${what}; ` +
      'a failure that depends on how the text is written (comments, line numbers, a function read by ' +
      'inspect.getsource) cannot be reduced',
    { details: "the printed copy's run:\n" + outputOf(run) },
  );
}

/**
 * The original reproduces in the runner's forked workers but not in a fresh Python
 * given the same environment: the runner cannot judge this program's candidates.
 * @param {string} errMsg
 * @param {RunResult} run the fresh Python's last run
 * @param {FailureInfo} original how the original failed in the runner
 * @param {number} timeout seconds
 */
export function runnerDiffers(errMsg, run, original, timeout) {
  const what = failedOtherwise(errMsg, run, original, timeout, {
    there: ' there',
    versus: `with ${original.kind} in the runner`,
  });
  return new AutoddError(
    'not-reproduced',
    `the original reproduces in the runner's forked workers, but not in a fresh python3: ${what}; ` +
      'give --backend subproc, which runs each candidate in a fresh python3',
    { details: "the fresh python3's run:\n" + outputOf(run) },
  );
}

/**
 * @param {string} errMsg
 * @param {RunResult[]} runs the original's runs, none of which showed MSG
 * @param {number} timeout
 * @param {string | undefined} hashSeed
 * @param {number | undefined} memoryLimit bytes, if candidates ran with a limit
 * @param {number} retries
 * @param {string[]} hints likely causes seen by the caller
 */
export function notReproduced(errMsg, runs, timeout, hashSeed, memoryLimit, retries, hints) {
  const run = runs[runs.length - 1];
  const how = ending(run, timeout);
  const killed = run.outcome === 'timeout' || run.outcome === 'stuck';
  const printed = `${run.stdoutTail}\n${run.stderrTail}`.includes(errMsg);
  const what =
    killed && printed
      ? `it printed ${JSON.stringify(errMsg)} but then ${run.outcome === 'stuck' ? 'was stuck' : `did not finish within the ${timeout} s timeout`}, and a run that is killed never counts`
      : `${JSON.stringify(errMsg)} is not in its output (${how}${runs.length > 1 ? `; ${runs.length} runs` : ''})`;
  return new AutoddError('not-reproduced', `the original program does not reproduce: ${what}`, {
    details:
      `${outputOf(run)}\n` +
      `(runs use PYTHONHASHSEED=${hashSeed}; a failure that depends on the hash seed may need another: set PYTHONHASHSEED)` +
      (retries === 1
        ? '\n(a failure that shows only sometimes needs --retries N: up to N runs of each program)'
        : '') +
      hints.map((hint) => `\n(${hint})`).join('') +
      (memoryLimit !== undefined && run.stderrTail.includes('MemoryError')
        ? `\n(it ran out of memory under the limit of ${Math.round(memoryLimit / MIB)} MiB per run: raise --memory-limit, or --no-memory-limit)`
        : ''),
  });
}

/**
 * @param {string} errMsg
 * @param {RunResult[]} runs the original's runs
 * @param {number} good how many of them reproduced
 */
export function flaky(errMsg, runs, good) {
  const failed = runs.find((r) => !r.found && !r.foundAnywhere) ?? runs[runs.length - 1];
  return new AutoddError(
    'not-reproduced',
    `the original program is flaky: ${JSON.stringify(errMsg)} showed in ${good} of its ${runs.length} runs; ` +
      'give --retries N (for example --retries 5) to run each program up to N times before it counts as not reproducing',
    { details: `a run that did not reproduce:\n${outputOf(failed)}` },
  );
}
