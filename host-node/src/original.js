// Checking the original: it runs twice (a failure in one run of two is flaky), more
// with `retries`, on the backend the candidates will use. Tested with a fake backend.

import { ran } from './verdict.js';

/** @typedef {import('./backends/result.js').RunResult} RunResult */

/**
 * Runs the original as often as judging it takes: twice (a failure in one run of two
 * is flaky), and with `retries` up to that many times in all while none of its runs
 * showed MSG; a run that hung is not repeated. With several jobs the second run goes at
 * once, on another job's worker (it starts meanwhile, on its own CPUs), and any other
 * workers start too.
 * @param {import('./backends/index.js').Backend} backend
 * @param {string} original
 * @param {{ jobs: number, retries: number, signal?: AbortSignal }} how
 * @returns {Promise<RunResult[]>}
 */
export async function runOriginal(backend, original, { jobs, retries, signal }) {
  const stopSecond = new AbortController();
  const abortSecond = () => stopSecond.abort();
  signal?.addEventListener('abort', abortSecond, { once: true });
  const second = jobs > 1 ? backend.run(original, { signal: stopSecond.signal }) : undefined;
  if (jobs > 1 && 'prestart' in backend) backend.prestart();
  /** @type {RunResult[]} */
  const checks = [];
  try {
    checks.push(await backend.run(original, { signal }));
    // A run that hung would hang again: its second run tells nothing.
    if (!ran(checks[0])) stopSecond.abort();
  } finally {
    // Settled before anything else runs (or the backend closes).
    const again = await second;
    if (again && !stopSecond.signal.aborted) checks.push(again);
    signal?.removeEventListener('abort', abortSecond);
  }
  while (
    !signal?.aborted &&
    ran(checks[checks.length - 1]) &&
    (checks.length < 2 || (checks.length < retries && !checks.some((r) => r.foundAnywhere)))
  ) {
    checks.push(await backend.run(original, { signal }));
  }
  return checks;
}

/**
 * Runs `text` until a run reproduces, up to `retries` runs in all (a run that hung,
 * or one cut short by `signal`, is not repeated): a second check of the original, in
 * another form or another Python. Returns the last run.
 * @param {{ run: (text: string, how: { signal?: AbortSignal }) => Promise<RunResult> }} backend
 * @param {string} text
 * @param {{ retries: number, signal?: AbortSignal, reproduces: (run: RunResult) => boolean }} how
 * @returns {Promise<RunResult>}
 */
export async function runUntilReproduced(backend, text, { retries, signal, reproduces }) {
  let run;
  let runs = 0;
  do {
    run = await backend.run(text, { signal });
    runs += 1;
  } while (runs < retries && ran(run) && !reproduces(run) && !signal?.aborted);
  return run;
}
