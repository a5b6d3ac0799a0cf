// The JS API: `reduce()` with a JS predicate and `reducePython()` without the CLI.
// Needs the wasm engine: run scripts/build-wasm.sh nodejs first.

import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { AutoddError, reduce, reducePython } from '../src/index.js';
import { createReducer, drive } from '../src/reduce.js';
import { BACKENDS, HAVE_ENGINE } from './helpers.js';

const skip = HAVE_ENGINE ? false : 'the wasm engine is not built (scripts/build-wasm.sh nodejs)';

const PROGRAM = `import math

def area(r):
    return math.pi * r * r

def describe(shape):
    print("shape", shape)

values = [area(r) for r in range(5)]
describe("circle")
total = sum(values)
print("needle", total)
`;

describe('reduce()', { skip }, () => {
  test('reduces with a JS predicate', async () => {
    /** @type {import('../src/reduce.js').Progress[]} */
    const progress = [];
    const seen = new Set();
    const result = await reduce({
      source: PROGRAM,
      isInteresting: async (candidate) => {
        seen.add(candidate);
        return candidate.includes('"needle"') || candidate.includes("'needle'");
      },
      onProgress: (p) => progress.push(p),
    });
    assert.match(result.source, /needle/);
    assert.ok(result.source.length < PROGRAM.length / 3, result.source);
    assert.equal(result.interrupted, false);
    assert.equal(result.stats.bestBytes, Buffer.byteLength(result.source));
    assert.ok(progress.length > 0);
    assert.ok(seen.size > 1);
  });

  test('runs candidates concurrently with jobs', async () => {
    let running = 0;
    let most = 0;
    const result = await reduce({
      source: PROGRAM,
      jobs: 3,
      isInteresting: async (candidate) => {
        running += 1;
        most = Math.max(most, running);
        await new Promise((resolve) => setTimeout(resolve, 5));
        running -= 1;
        return candidate.includes('needle');
      },
    });
    assert.match(result.source, /needle/);
    assert.ok(most > 1, 'more than one candidate was in flight');
  });

  test('with jobs, a faster later run never overtakes: the search is the one of jobs 1', async () => {
    /** @param {number} jobs */
    const run = async (jobs) => {
      /** @type {string[]} */
      const accepted = [];
      let tried = 0;
      const result = await reduce({
        source: PROGRAM,
        jobs,
        isInteresting: async (candidate) => {
          // Longer candidates take longer, so later (smaller) ones often finish first.
          await new Promise((resolve) => setTimeout(resolve, candidate.length % 7));
          return candidate.includes('needle');
        },
        onProgress: (p) => {
          tried = p.tried;
          if (p.accepted) accepted.push(`${p.accepted.id}:${p.accepted.bytes}`);
        },
      });
      return { source: result.source, accepted, tried };
    };
    const one = await run(1);
    const three = await run(3);
    assert.equal(three.source, one.source);
    assert.equal(three.tried, one.tried);
    assert.deepEqual(
      three.accepted.map((a) => a.split(':')[1]),
      one.accepted.map((a) => a.split(':')[1]),
    );
  });

  test('refuses a predicate that rejects the original', async () => {
    await assert.rejects(
      reduce({ source: PROGRAM, isInteresting: async () => false }),
      (err) => err instanceof AutoddError && err.code === 'not-reproduced',
    );
  });

  test('reports a syntax error with its position', async () => {
    await assert.rejects(
      reduce({ source: 'x = (\n', isInteresting: async () => true }),
      (err) => err instanceof AutoddError && err.code === 'syntax-error' && typeof err.line === 'number',
    );
  });

  test('refuses a program nested too deep in one error, and reduces deep ones after it', async () => {
    // Made before the engine is loaded afresh: it goes on with the instance that made it.
    const before = createReducer(PROGRAM);
    await assert.rejects(
      reduce({ source: `x = ${'-'.repeat(20000)}1\n`, isInteresting: async () => true }),
      (err) => err instanceof AutoddError && err.code === 'bad-input' && /nests .* deeper/.test(err.message),
    );
    // A generated sum of 2,000 terms: the engine recurses once per term.
    const sum = `x = ${Array(2000).fill('1').join(' + ')}\nunused = 1\nprint("needle", x)\n`;
    const deep = await reduce({ source: sum, isInteresting: async (c) => c.includes('needle') });
    assert.doesNotMatch(deep.source, /unused/);
    const driven = await drive(before, { jobs: 1, evaluate: async (c) => c.source.includes('needle') });
    assert.match(driven.source, /needle/);
    before.free();
  });

  test(
    'an abort returns at once, though a predicate ignores its signal; each got one',
    { timeout: 20_000 },
    async () => {
      const controller = new AbortController();
      /** @type {AbortSignal[]} */
      const signals = [];
      let calls = 0;
      const started = performance.now();
      setTimeout(() => controller.abort(), 300);
      const result = await reduce({
        source: PROGRAM,
        jobs: 2,
        signal: controller.signal,
        // The original passes at once; then every candidate hangs for good.
        isInteresting: (candidate, signal) => {
          signals.push(signal);
          calls += 1;
          return calls === 1 ? Promise.resolve(candidate.includes('needle')) : new Promise(() => {});
        },
      });
      assert.equal(result.interrupted, true);
      assert.equal(result.source, createReducer(PROGRAM).best());
      assert.ok(performance.now() - started < 5000, 'returned on abort, not after the hung evaluations');
      assert.ok(signals.length >= 2 && signals.every((s) => s instanceof AbortSignal));
      assert.ok(
        signals.slice(1).every((s) => s.aborted),
        'the evaluations going were told',
      );
    },
  );

  test('a synchronous predicate works with a signal; an aborted signal returns the original unchecked', async () => {
    const controller = new AbortController();
    const result = await reduce({
      source: PROGRAM,
      signal: controller.signal,
      isInteresting: /** @type {any} */ ((/** @type {string} */ c) => c.includes('needle')),
    });
    assert.equal(result.interrupted, false);
    assert.ok(result.source.length < PROGRAM.length / 2, result.source);
    controller.abort();
    let calls = 0;
    const stopped = await reduce({
      source: PROGRAM,
      signal: controller.signal,
      isInteresting: async () => {
        calls += 1;
        return true;
      },
    });
    assert.equal(calls, 0);
    assert.equal(stopped.interrupted, true);
    assert.equal(stopped.source, createReducer(PROGRAM).best());
  });

  test('any truthy answer counts, for the original and the candidates alike', async () => {
    const result = await reduce({
      source: PROGRAM,
      isInteresting: async (c) => (c.includes('needle') ? 1 : 0),
    });
    assert.ok(result.source.length < PROGRAM.length / 2, result.source);
  });

  test('refuses options of the wrong kind with a usage error', async () => {
    const ok = async () => true;
    for (const options of [
      null,
      { source: PROGRAM, isInteresting: ok, signal: 'abc' },
      { source: PROGRAM, isInteresting: ok, rewrites: 'stmt-remover' },
      { source: PROGRAM, isInteresting: ok, onProgress: 'log' },
    ]) {
      await assert.rejects(
        reduce(/** @type {any} */ (options)),
        (err) => err instanceof AutoddError && err.code === 'usage',
        JSON.stringify(options),
      );
    }
  });

  test('stops on abort and returns the best so far', async () => {
    const controller = new AbortController();
    let calls = 0;
    const result = await reduce({
      source: PROGRAM,
      signal: controller.signal,
      isInteresting: async (candidate) => {
        calls += 1;
        if (calls === 3) controller.abort();
        return candidate.includes('needle');
      },
    });
    assert.match(result.source, /needle/);
    assert.ok(calls <= 4);
  });
});

describe('drive()', { skip }, () => {
  const SOURCE = readFileSync(new URL('../../examples/autodd/tile_kernel_bug.py', import.meta.url), 'utf8');
  const NEEDLE = 'K shape check failed';
  /** A text's pseudo-random number, so verdicts and run times depend on the text alone. */
  const hash = (/** @type {string} */ text) =>
    [...text].reduce((h, c) => (h * 31 + c.charCodeAt(0)) >>> 0, 7);

  /**
   * Reduces SOURCE with some candidates slow (they fail, late), counting the runs
   * that started while a success waited on an earlier, slow candidate.
   * @param {number} jobs
   * @param {boolean} speculate
   */
  const run = async (jobs, speculate) => {
    const reducer = createReducer(SOURCE);
    /** @type {Set<{ seq: number, overtaken: boolean }>} */
    const slow = new Set();
    let started = 0;
    let startedBehindSlow = 0;
    /** @type {string[]} */
    const accepted = [];
    try {
      const result = await drive(reducer, {
        jobs,
        speculate,
        evaluate: async (candidate, signal) => {
          if ([...slow].some((s) => s.overtaken)) startedBehindSlow += 1;
          const h = hash(candidate.source);
          const interesting = candidate.source.includes(NEEDLE) && h % 4 !== 1;
          const isSlow = !interesting && h % 3 === 0;
          const me = { seq: (started += 1), overtaken: false };
          if (isSlow) slow.add(me);
          await new Promise((resolve) => {
            const timer = setTimeout(resolve, isSlow ? 40 : 1);
            signal.addEventListener('abort', () => {
              clearTimeout(timer);
              slow.delete(me);
              resolve(undefined);
            });
          });
          slow.delete(me);
          // A success overtakes the slow candidates that started before it.
          if (interesting) for (const s of slow) if (s.seq < me.seq) s.overtaken = true;
          return interesting;
        },
        onAccept: (best) => {
          accepted.push(best);
        },
      });
      return { source: result.source, tried: result.tried, accepted, startedBehindSlow };
    } finally {
      reducer.free();
    }
  };

  test('with jobs, runs candidates while a success waits on a slow one, and searches as jobs 1 does', async () => {
    const one = await run(1, true);
    assert.ok(one.accepted.length > 5, `${one.accepted.length} accepted`);
    for (const jobs of [2, 3]) {
      const waiting = await run(jobs, false);
      const speculating = await run(jobs, true);
      for (const other of [waiting, speculating]) {
        assert.equal(other.source, one.source, `${jobs} jobs`);
        assert.equal(other.tried, one.tried, `${jobs} jobs`);
        assert.deepEqual(other.accepted, one.accepted, `${jobs} jobs`);
      }
      // Without speculation, a success waiting on a slow earlier candidate holds the
      // free slots idle; with it, they run candidates that assume the slow one fails.
      assert.equal(waiting.startedBehindSlow, 0, `${jobs} jobs`);
      assert.ok(speculating.startedBehindSlow > 0, `${jobs} jobs`);
    }
  });

  test('passes on a candidate that hung: later rounds try its site alone, even after speculating past it', async () => {
    // The loop spins forever without `n += 1`; the assignments before it can all go.
    const source = `${Array.from({ length: 12 }, (_, i) => `a${i} = ${i}\n`).join('')}n = 0\nwhile n < 3:\n    n += 1\nraise ValueError('${NEEDLE}')\n`;
    /** @param {number} jobs @param {boolean} forgetHangs */
    const hangs = async (jobs, forgetHangs) => {
      const reducer = createReducer(source, { forgetHangs });
      let round = 1;
      let phase = 'fast';
      /** @type {{ round: number, sites: number }[]} */
      const hung = [];
      try {
        const result = await drive(reducer, {
          jobs,
          evaluate: async (candidate, signal) => {
            if (candidate.phase === 'fast' && phase !== 'fast') round += 1;
            phase = candidate.phase;
            const looping = candidate.source.includes('while n < 3:');
            const spins = looping && !candidate.source.includes('n += 1');
            if (spins) hung.push({ round, sites: candidate.sites });
            // A hang runs longest: with jobs, later candidates are proposed past it.
            await new Promise((resolve) => {
              const timer = setTimeout(resolve, spins ? 20 : 1);
              signal.addEventListener('abort', () => resolve(clearTimeout(timer)));
            });
            if (spins) return 'hung';
            return looping && candidate.source.includes('n = 0') && candidate.source.includes(NEEDLE);
          },
        });
        return { source: result.source, rounds: round, hung };
      } finally {
        reducer.free();
      }
    };
    for (const jobs of [1, 2]) {
      const remembered = await hangs(jobs, false);
      const forgotten = await hangs(jobs, true);
      assert.equal(remembered.source, forgotten.source, `${jobs} jobs`);
      assert.ok(remembered.rounds > 1, `${jobs} jobs: ${remembered.rounds} rounds`);
      const later = (/** @type {typeof remembered} */ run) => run.hung.filter((h) => h.round > 1);
      assert.ok(later(remembered).length > 0, `${jobs} jobs`);
      assert.deepEqual(
        later(remembered).filter((h) => h.sites > 1),
        [],
        `${jobs} jobs`,
      );
      assert.ok(
        later(forgotten).some((h) => h.sites > 1),
        `${jobs} jobs`,
      );
    }
  });
});

describe('reducePython()', { skip }, () => {
  test('reduces a source string with the runner backend', async () => {
    const result = await reducePython({
      source: PROGRAM,
      errMsg: 'needle',
      timeout: 5,
    });
    assert.equal(result.reproduced, true);
    assert.match(result.source, /needle/);
    assert.ok(result.source.length < PROGRAM.length / 3, result.source);
    assert.equal(result.checked, true);
    // The next candidate is proposed while the current one runs.
    const { engineMs, engineOutsideRunsMs } = result.timings;
    assert.ok(
      engineOutsideRunsMs >= 0 && engineOutsideRunsMs < engineMs,
      `${engineOutsideRunsMs} of ${engineMs}`,
    );
  });

  for (const backend of BACKENDS) {
    test(`${backend}: an env without PATH still runs the interpreter found at the start`, async () => {
      const result = await reducePython({ source: PROGRAM, errMsg: 'needle', env: {}, backend, timeout: 5 });
      assert.equal(result.reproduced, true);
      assert.equal(result.failure.original?.kind, 'exit status 0');
    });
  }

  // A set of strings iterates in an order that depends on the hash seed.
  const SEEDED = `words = {"alpha", "beta", "gamma", "delta", "epsilon", "zeta"}
order = ",".join(words)
print("order", order)
if order == ORDER:
    print("same order as seed 0")
`;
  /** @param {string} seed */
  const orderUnder = (seed) =>
    spawnSync('python3', ['-c', 'print(",".join({"alpha", "beta", "gamma", "delta", "epsilon", "zeta"}))'], {
      env: { ...process.env, PYTHONHASHSEED: seed },
      encoding: 'utf8',
    }).stdout.trim();

  for (const backend of BACKENDS) {
    test(`${backend}: every run of a reduction has one hash seed, 0 unless PYTHONHASHSEED says`, async () => {
      const order = orderUnder('0');
      const source = SEEDED.replace('ORDER', JSON.stringify(order));
      const result = await reducePython({
        source,
        errMsg: 'same order as seed 0',
        backend,
        jobs: 2,
        timeout: 5,
      });
      assert.equal(result.checked, true);
      assert.match(result.source, /same order as seed 0/);
      const other = ['1', '2', '3', '4', '5'].find((seed) => orderUnder(seed) !== order);
      assert.ok(other, 'some seed orders the set differently');
      await assert.rejects(
        reducePython({
          source,
          errMsg: 'same order as seed 0',
          backend,
          timeout: 5,
          env: { ...process.env, PYTHONHASHSEED: other },
        }),
        (err) =>
          err instanceof AutoddError &&
          err.code === 'not-reproduced' &&
          String(err.details).includes(`PYTHONHASHSEED=${other}`),
      );
    });
  }

  test('refuses an empty errMsg', async () => {
    await assert.rejects(
      reducePython({ source: PROGRAM, errMsg: '' }),
      (err) => err instanceof AutoddError && err.code === 'usage',
    );
  });
});
