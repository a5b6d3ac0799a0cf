// The policies of reducePython() on their own, without Python: its settings, the time
// limits, checking the original (on a fake backend), writing OUTPUT, and finishing.

import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import { OutputWriter } from '../src/files.js';
import { finishInterrupted, finishReduction } from '../src/finish.js';
import { ADAPTIVE_MARGIN_MS, LEARN_AFTER, LEARN_WINDOW, TimeLimits } from '../src/limits.js';
import { runOriginal } from '../src/original.js';
import { ProgressReporter } from '../src/progress.js';
import { MIB, settingsOf } from '../src/settings.js';
import { tempDir } from './helpers.js';

/** @typedef {import('../src/backends/result.js').RunResult} RunResult */

/**
 * A run that ended as given (exited 1 with MSG by default).
 * @param {Partial<RunResult>} [how]
 * @returns {RunResult}
 */
function runOf(how = {}) {
  return {
    found: true,
    foundAnywhere: true,
    exception: 'ValueError',
    msgLine: 'ValueError: MSG',
    outcome: 'exited',
    exitCode: 1,
    signal: null,
    stdoutTail: '',
    stderrTail: 'ValueError: MSG\n',
    ms: 10,
    ...how,
  };
}

describe('settings', () => {
  const base = { source: 'raise ValueError("MSG")\n', errMsg: 'MSG' };

  test('a bad option is a usage error naming it', () => {
    const cases = /** @type {[object, RegExp][]} */ ([
      [{ errMsg: '' }, /error message must not be empty/],
      [{ errMsg: ' \n' }, /error message must not be empty or only spaces/],
      [{ errMsg: 5 }, /errMsg must be a string/],
      [{ output: 7 }, /output must be a file name/],
      [{ signal: 'abc' }, /signal must be an AbortSignal/],
      [{ backend: 'ssh' }, /unknown backend 'ssh'/],
      [{ timeout: 0 }, /timeout must be a positive number/],
      [{ timeout: 0.1 }, /timeout must be at least 0\.5 seconds/],
      [{ retries: 1.5 }, /retries must be a whole number/],
      [{ jobs: 0 }, /jobs must be a positive integer/],
      [{ jobs: 1000 }, /force it with --force-jobs/],
      [{ jobs: 1e9, forceJobs: true }, /jobs must be at most 1024, not 1000000000/],
      [{ retries: 1e9 }, /retries must be a whole number of runs from 1 to 100/],
      [{ backend: 'subproc', memoryLimit: 100 }, /memory limit needs the runner backend/],
      [{ memoryLimit: -1 }, /memory limit must be a positive number/],
      [{ file: 'a.py' }, /exactly one of file and source/],
    ]);
    for (const [options, message] of cases) {
      assert.throws(
        () => settingsOf({ ...base, ...options }),
        (/** @type {any} */ err) => err.code === 'usage' && message.test(err.message),
        JSON.stringify(options),
      );
    }
  });

  test('the defaults, and a memory limit in MiB', () => {
    const settings = settingsOf(base);
    assert.equal(settings.backendName, 'runner');
    assert.equal(settings.timeout, 60);
    assert.equal(settings.jobs, 1);
    assert.equal(settings.retries, 1);
    assert.ok(/** @type {number} */ (settings.memoryLimit) >= 2048 * MIB);
    assert.equal(settingsOf({ ...base, memoryLimit: 100 }).memoryLimit, 100 * MIB);
    assert.equal(settingsOf({ ...base, memoryLimit: false }).memoryLimit, undefined);
    // A failure about memory itself gets no default limit: the limit could fake it.
    assert.equal(settingsOf({ ...base, errMsg: 'MemoryError' }).memoryLimit, undefined);
    assert.equal(settingsOf({ ...base, backend: 'subproc' }).prefork, false);
  });

  test('an unreadable stdin file is bad input', () => {
    assert.throws(
      () => settingsOf({ ...base, stdin: path.join(tempDir(), 'missing.txt') }),
      (/** @type {any} */ err) => err.code === 'bad-input' && /for the standard input/.test(err.message),
    );
  });
});

describe('time limits', () => {
  test("the original's run sets the cap, never above --timeout", () => {
    const limits = new TimeLimits({ timeoutMs: 60_000, adaptive: true, learn: true });
    limits.setOriginal(100);
    assert.equal(limits.candidateMs, 1000 + ADAPTIVE_MARGIN_MS);
    assert.equal(limits.firstCandidateMs, limits.candidateMs);
    assert.equal(limits.stuckMs, 2 * 100 + 20);
    const slow = new TimeLimits({ timeoutMs: 5000, adaptive: true, learn: true });
    slow.setOriginal(4000);
    assert.equal(slow.candidateMs, 5000);
    const fixed = new TimeLimits({ timeoutMs: 5000, adaptive: false, learn: true });
    fixed.setOriginal(10);
    assert.equal(fixed.candidateMs, 5000);
    assert.equal(fixed.reproducedIn(10), undefined, 'no learning without an adaptive cap');
  });

  test('from the LEARN_AFTER-th reproducing candidate the cap follows the last LEARN_WINDOW of them', () => {
    const limits = new TimeLimits({ timeoutMs: 60_000, adaptive: true, learn: true });
    limits.setOriginal(100);
    for (let i = 1; i < LEARN_AFTER; i++) assert.equal(limits.reproducedIn(50), undefined);
    // 3 times the slowest, plus the margin: under the old floor of 4 times the original's run.
    assert.equal(limits.reproducedIn(50), 150 + ADAPTIVE_MARGIN_MS);
    assert.equal(limits.reproducedIn(50), undefined, 'unchanged');
    // A slower one raises it...
    assert.equal(limits.reproducedIn(200), 600 + ADAPTIVE_MARGIN_MS);
    // ...until LEARN_WINDOW faster ones came after it.
    for (let i = 1; i < LEARN_WINDOW; i++) assert.equal(limits.reproducedIn(20), undefined);
    assert.equal(limits.reproducedIn(20), 60 + ADAPTIVE_MARGIN_MS);
    // Never above the cap the original set.
    assert.equal(limits.reproducedIn(900), limits.firstCandidateMs);
    assert.equal(limits.quickMs, limits.candidateMs + 500);
  });
});

describe('checking the original', () => {
  /**
   * A backend whose runs end as `script` says, in order; it records each run.
   * @param {RunResult[]} script
   */
  function fakeBackend(script) {
    const started = /** @type {string[]} */ ([]);
    return {
      started,
      /** @param {string} text @param {{ signal?: AbortSignal }} how */
      async run(text, { signal }) {
        started.push(text);
        const result = script.shift() ?? runOf();
        await new Promise((resolve) => setTimeout(resolve, 1));
        return signal?.aborted ? runOf({ outcome: 'cancelled', found: false }) : result;
      },
    };
  }
  const asBackend = (/** @type {any} */ fake) => /** @type {any} */ (fake);

  test('it runs twice, and more with retries only while no run showed MSG', async () => {
    const twice = fakeBackend([runOf(), runOf()]);
    assert.equal((await runOriginal(asBackend(twice), 'p', { jobs: 1, retries: 5 })).length, 2);
    const none = () => runOf({ found: false, foundAnywhere: false });
    const missing = fakeBackend([none(), none(), none(), none(), none(), none()]);
    assert.equal((await runOriginal(asBackend(missing), 'p', { jobs: 1, retries: 4 })).length, 4);
    const flaky = fakeBackend([none(), runOf(), none()]);
    assert.equal((await runOriginal(asBackend(flaky), 'p', { jobs: 1, retries: 4 })).length, 2);
  });

  test('a run that hung is not repeated', async () => {
    const hung = fakeBackend([runOf({ outcome: 'timeout', found: false }), runOf()]);
    const checks = await runOriginal(asBackend(hung), 'p', { jobs: 1, retries: 3 });
    assert.deepEqual(
      checks.map((r) => r.outcome),
      ['timeout'],
    );
  });

  test('with two jobs the second run starts at once', async () => {
    const both = fakeBackend([runOf({ ms: 30 }), runOf({ ms: 20 })]);
    const checks = await runOriginal(asBackend(both), 'p', { jobs: 2, retries: 1 });
    // The second run was started before the first (it took the script's first result).
    assert.deepEqual(
      checks.map((r) => r.ms),
      [20, 30],
    );
  });
});

describe('OUTPUT', () => {
  test('only a smaller program replaces it, and only the newest queued is written', async () => {
    const file = path.join(tempDir(), 'out.py');
    const writer = new OutputWriter(file);
    await writer.start('x = 1\ny = 2\nraise E\n');
    writer.keep('y = 2\nraise E\n');
    writer.keep('x = 1\nraise E\n');
    writer.keep('raise E\n');
    await writer.settle();
    assert.equal(fs.readFileSync(file, 'utf8'), 'raise E\n');
    writer.keep('x = 12345\nraise E\n');
    await writer.settle();
    assert.equal(fs.readFileSync(file, 'utf8'), 'raise E\n', 'a larger program never replaces it');
    assert.deepEqual(fs.readdirSync(path.dirname(file)), ['out.py'], 'no temporary file is left');
  });

  test('a failed write is kept and rethrown', async () => {
    const writer = new OutputWriter(path.join(tempDir(), 'gone', 'out.py'));
    writer.written = 'x = 1\nraise E\n';
    writer.keep('raise E\n');
    await writer.idle();
    await assert.rejects(
      writer.settle(),
      (/** @type {any} */ err) =>
        err.code === 'write-failed' &&
        /^cannot write .*out\.py: no such file or directory$/.test(err.message),
    );
  });
});

describe('finishing', () => {
  const FROZEN = 'with __freeze__:\n    raise E\n';
  const BARE = 'raise E\n';
  /**
   * Tools that record what they did; runs of `bare` reproduce when `bareReproduces`.
   * @param {boolean} bareReproduces
   */
  function tools(bareReproduces) {
    const did = /** @type {string[]} */ ([]);
    const run = (/** @type {string} */ text) => runOf({ found: text === BARE ? bareReproduces : true });
    return {
      did,
      reproduces: (/** @type {RunResult} */ r) => r.found,
      stripFreeze: (/** @type {string} */ text) => text.replace('with __freeze__:\n    ', ''),
      write: async (/** @type {string} */ text) => void did.push(`write ${JSON.stringify(text)}`),
      freshRun: async (/** @type {string} */ text) => (did.push(`fresh ${JSON.stringify(text)}`), run(text)),
      attempt: async (/** @type {string} */ text) => (did.push(`attempt ${JSON.stringify(text)}`), run(text)),
      warn: (/** @type {string} */ message) => void did.push(`warn ${message}`),
      closeBackend: async () => void did.push('close'),
      keepFreeze: false,
    };
  }

  test('markers go when the result reproduces without them; then fresh runs confirm it', async () => {
    const t = tools(true);
    const done = await finishReduction(t, { result: FROZEN, checkRuns: 2, timeoutMs: 1000 });
    assert.equal(done.final, BARE);
    assert.equal(done.stripped, true);
    assert.equal(done.confirms.length, 2);
    assert.deepEqual(t.did, [
      `write ${JSON.stringify(FROZEN)}`,
      `attempt ${JSON.stringify(BARE)}`,
      `write ${JSON.stringify(BARE)}`,
      'close',
      `fresh ${JSON.stringify(BARE)}`,
      `fresh ${JSON.stringify(BARE)}`,
    ]);
  });

  test('with `together`, the fresh runs go at once, each as its own job', async () => {
    /** @type {(number | undefined)[]} */
    const started = [];
    let going = 0;
    let most = 0;
    const t = {
      ...tools(true),
      /** @type {(text: string, ms: number, signal?: AbortSignal, job?: number) => Promise<RunResult>} */
      freshRun: async (text, _ms, _signal, job) => {
        started.push(job);
        going += 1;
        most = Math.max(most, going);
        await new Promise((resolve) => setTimeout(resolve, 20));
        going -= 1;
        return runOf({ found: text === BARE });
      },
    };
    const done = await finishReduction(t, { result: BARE, checkRuns: 3, timeoutMs: 1000, together: 2 });
    assert.equal(done.confirms.length, 3);
    assert.equal(most, 2, 'two runs at once');
    assert.deepEqual(started, [0, 1, 0]);
    most = 0;
    await finishReduction(t, { result: BARE, checkRuns: 2, timeoutMs: 1000 });
    assert.equal(most, 1, 'one at a time by default');
  });

  test('markers stay, with a warning, when the result needs them', async () => {
    const t = tools(false);
    const done = await finishReduction(t, { result: FROZEN, checkRuns: 1, timeoutMs: 1000 });
    assert.equal(done.final, FROZEN);
    assert.equal(done.stripped, false);
    assert.ok(
      t.did.some((d) => d.startsWith('warn the result does not reproduce without its freeze markers')),
    );
    const kept = tools(true);
    kept.keepFreeze = true;
    assert.equal((await finishReduction(kept, { result: FROZEN, checkRuns: 1, timeoutMs: 1 })).final, FROZEN);
  });

  test('an interrupted reduction keeps the smaller of the best and OUTPUT', async () => {
    const t = tools(true);
    const larger = `x = 1\n${FROZEN}`;
    const done = await finishInterrupted(t, { best: larger, written: FROZEN, quickMs: 100 });
    assert.equal(done.final, BARE);
    assert.equal(done.stripped, true);
    const needs = tools(false);
    assert.equal(
      (await finishInterrupted(needs, { best: FROZEN, written: larger, quickMs: 100 })).final,
      FROZEN,
    );
  });
});

describe('progress', () => {
  test('accepted candidates are numbered in the order they are reported', () => {
    let text = '';
    const stream = /** @type {any} */ ({ write: (/** @type {string} */ chunk) => (text += chunk) });
    const reporter = new ProgressReporter({ stream });
    // A speculation adopted at once: the engine's count already holds all three.
    const stats = { accepted: 3, originalBytes: 100, bestBytes: 50, bestLines: 5, phase: 'fast' };
    for (const [id, bytes] of [
      [4294967301, 80],
      [4294967302, 70],
      [4294967309, 60],
    ]) {
      const accepted = {
        id,
        phase: 'fast',
        rewrites: ['stmt-remover'],
        sites: 1,
        bytes,
        lines: 5,
        elapsedMs: 0,
      };
      reporter.update(/** @type {any} */ ({ id, stats, tried: 3, elapsedMs: 0, accepted }));
      reporter.update(/** @type {any} */ ({ id: id + 1, stats, tried: 4, elapsedMs: 0 }));
    }
    assert.deepEqual(
      [...text.matchAll(/accepted #(\d+)/g)].map((m) => m[1]),
      ['1', '2', '3'],
      text,
    );
  });
});
