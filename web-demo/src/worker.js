// The reduction, off the page's thread: this worker loads the same wasm engine as
// every other host and drives the same scheduler as the Node host (fill → oracle →
// finished), one candidate at a time, posting progress in batches so the page stays
// responsive at any speed. The oracle is the mocked predicate, or Python in the
// browser: Pyodide in a worker of its own (pyoracle.js), with MSG matched in each
// candidate's output by the CLI's rules.
//
// Messages in:  engine { module } (first: the engine, compiled by the page)
//               · candidate { id } (a rejected candidate's text, for the log: answered
//                 with candidate { run, id, source | null })
//               · start { run, source, oracle: { mode: 'mocked', predicate } | { mode: 'python', needle } }
//               · play · pause · step · speed { delay } · stop
// Messages out: ready · python { pyodide, python } · started { run, stats, warnings, best, original? }
//               · progress { run, events, stats, done, best?, result? }
//               · error { run, where: 'program' | 'oracle' | 'engine', message, code?, line?, column? }

import init, { Reducer, Scheduler } from '../pkg/autodd_wasm.js';
import { compilePredicate } from './oracle.js';
import { PythonOracle } from './pyoracle.js';

/**
 * @typedef {import('../pkg/autodd_wasm.js').Candidate} Candidate
 * @typedef {import('../pkg/autodd_wasm.js').Action} Action
 * @typedef {object} CandidateEvent
 * @property {number} n 1-based count of candidates tried in this run
 * @property {number} id
 * @property {string} phase
 * @property {string[]} rewrites
 * @property {number} sites
 * @property {boolean} accepted
 * @property {number} bytes UTF-8 bytes of the candidate
 * @property {number} lines
 * @property {number} bestBytes
 * @property {number} bestLines
 * @property {string} [source] the candidate, when it was accepted (the new best)
 * @property {boolean} [timedOut] Python in the browser stopped it at its time limit
 */

// At full speed, how long one batch may run before the worker posts it and looks at
// its inbox (so "pause" is heard within a frame or two).
const SLICE_MS = 30;
/** Python in the browser: how long the original may run, and the least a candidate gets. */
const ORIGINAL_LIMIT_MS = 30_000;
const MIN_LIMIT_MS = 1000;
const encoder = new TextEncoder();

/** @type {Scheduler | null} */
let reducer = null;
/**
 * The latest rejected candidates' texts, by id, for the page's log (an accepted one's
 * text goes with its event): at most RECENT of them and RECENT_BYTES in all.
 * @type {Map<number, string>}
 */
const recent = new Map();
let recentBytes = 0;
const RECENT = 400;
const RECENT_BYTES = 32 * 1024 * 1024;

/**
 * @param {number} id
 * @param {string} source
 */
function remember(id, source) {
  recent.set(id, source);
  recentBytes += source.length;
  while (recent.size > RECENT || recentBytes > RECENT_BYTES) {
    const [oldest, text] = /** @type {[number, string]} */ (recent.entries().next().value);
    recent.delete(oldest);
    recentBytes -= text.length;
  }
}
/** @type {((source: string) => boolean) | null} */
let predicate = null;
/** Python in the browser, started on first use and kept for later runs. */
const python = new PythonOracle();
/** @type {{ needle: string, limitMs: number, matchQuoted: boolean } | null} the Python oracle of this run */
let pythonRun = null;
/** A batch of Python runs is under way (they are awaited one by one). */
let busy = false;
/** Python is loading and the original running: Play and Step wait for it. */
let preparing = false;
let stepWhenReady = false;
let run = 0;
let tried = 0;
let running = false;
let delay = 0;
/** @type {ReturnType<typeof setTimeout> | null} */
let timer = null;
let oracleErrors = 0;

/** @type {(module: WebAssembly.Module) => void} */
let gotEngine = () => {};
// The page compiles the engine once and sends it as the first message.
const ready = new Promise((resolve) => (gotEngine = resolve))
  .then((module) => init({ module_or_path: /** @type {WebAssembly.Module} */ (module) }))
  .then(
    () => post({ type: 'ready' }),
    (e) => post({ type: 'error', run: 0, where: 'engine', message: `cannot load the engine: ${message(e)}` }),
  );

self.onmessage = async (event) => {
  if (event.data.type === 'engine') {
    gotEngine(event.data.module);
    return;
  }
  await ready;
  const msg = event.data;
  switch (msg.type) {
    case 'start':
      if (msg.oracle?.mode === 'python') await startPython(msg.run, msg.source, msg.oracle.needle);
      else start(msg.run, msg.source, msg.oracle?.predicate ?? msg.predicate);
      break;
    case 'play':
      if (reducer && !running) {
        running = true;
        schedule(0);
      }
      break;
    case 'pause':
      halt();
      break;
    case 'step':
      halt();
      if (preparing) stepWhenReady = true;
      else if (reducer && pythonRun) {
        if (!busy) flush(await runPython(1, Infinity));
      } else if (reducer) flush(runFor(1, Infinity));
      break;
    case 'speed':
      delay = Math.max(0, Number(msg.delay) || 0);
      break;
    case 'candidate':
      post({ type: 'candidate', run, id: msg.id, source: recent.get(msg.id) ?? null });
      break;
    case 'stop':
      halt();
      free();
      break;
  }
};

/**
 * @param {number} newRun
 * @param {string} source
 * @param {string} body
 */
function start(newRun, source, body) {
  halt();
  free();
  pythonRun = null;
  preparing = false;
  run = newRun;
  tried = 0;
  oracleErrors = 0;
  try {
    predicate = compilePredicate(body);
  } catch (e) {
    post({ type: 'error', run, where: 'oracle', message: message(e) });
    return;
  }
  const warnings = open(source);
  if (!warnings || !reducer) return;
  const opened = reducer;
  // Like the CLI, refuse a predicate that the original program does not satisfy:
  // the reduction would have nothing to keep.
  let interesting = false;
  try {
    interesting = predicate(opened.best());
  } catch (e) {
    post({ type: 'error', run, where: 'oracle', message: message(e) });
    free();
    return;
  }
  if (!interesting) {
    post({
      type: 'error',
      run,
      where: 'oracle',
      message: 'the predicate is false for the original program: there is no failure to keep',
    });
    free();
    return;
  }
  post({ type: 'started', run, stats: opened.stats(), warnings, best: opened.best() });
}

/**
 * Starts a run whose oracle is Python in the browser: the original must show `needle`
 * under Pyodide, as under python3 for the CLI.
 * @param {number} newRun
 * @param {string} source
 * @param {string} needle
 */
async function startPython(newRun, source, needle) {
  halt();
  free();
  pythonRun = null;
  run = newRun;
  tried = 0;
  if (typeof needle !== 'string' || needle === '') {
    post({
      type: 'error',
      run,
      where: 'oracle',
      message: 'the failure message is empty: give text the failure prints',
    });
    return;
  }
  let warnings = open(source);
  if (!warnings || !reducer) return;
  const opened = reducer;
  const mine = run;
  let original;
  preparing = true;
  stepWhenReady = false;
  try {
    await python.start();
    post({ type: 'python', ...python.versions });
    original = await python.run(opened.best(), needle, ORIGINAL_LIMIT_MS);
  } catch (e) {
    if (run === mine) {
      post({ type: 'error', run, where: 'oracle', message: message(e) });
      running = false;
    }
    return;
  } finally {
    if (run === mine) preparing = false;
  }
  if (run !== mine || !reducer) return;
  const missing = /ModuleNotFoundError: No module named '([^']+)'/.exec(original.stderrTail);
  if (!original.foundAnywhere) {
    running = false;
    const why = original.timedOut
      ? `it ran past ${ORIGINAL_LIMIT_MS / 1000} s`
      : missing
        ? `it imports ${missing[1]}, which Pyodide cannot provide here: use the mocked oracle`
        : `${JSON.stringify(needle)} is not in its output`;
    post({
      type: 'error',
      run,
      where: 'oracle',
      message: `the original program does not fail that way in the browser: ${why}`,
      original,
    });
    free();
    return;
  }
  // As the CLI does: MSG only in source lines that a traceback quotes counts then.
  const matchQuoted = !original.found;
  if (matchQuoted) {
    warnings = [
      ...warnings,
      `${JSON.stringify(needle)} is only in source lines Python quotes in the original's output; quoted lines count for this run`,
    ];
  }
  pythonRun = { needle, limitMs: Math.max(MIN_LIMIT_MS, 10 * original.ms + 200), matchQuoted };
  post({ type: 'started', run, stats: reducer.stats(), warnings, best: reducer.best(), original });
  // Play or Step arrived while Python loaded.
  if (running) schedule(0);
  else if (stepWhenReady) flush(await runPython(1, Infinity));
}

/**
 * Parses `source` into a new scheduler (`reducer`): the engine's warnings, or null
 * when it does not parse (reported).
 * @param {string} source
 * @returns {string[] | null}
 */
function open(source) {
  try {
    const parsed = new Reducer(source);
    const warnings = parsed.warnings();
    reducer = new Scheduler(parsed, { jobs: 1 });
    parsed.free();
    return warnings;
  } catch (e) {
    post({ type: 'error', run, where: 'program', ...engineError(e) });
    return null;
  }
}

/** Runs one batch, posts it, and schedules the next while playing. */
async function tick() {
  timer = null;
  if (!running || !reducer || busy || preparing) return;
  const mine = run;
  const batch = pythonRun
    ? await runPython(delay === 0 ? Infinity : 1, delay === 0 ? SLICE_MS : Infinity)
    : delay === 0
      ? runFor(Infinity, SLICE_MS)
      : runFor(1, Infinity);
  if (run !== mine) return;
  flush(batch);
  if (batch.done) {
    running = false;
    if (pythonRun && reducer) {
      // What the result prints, for the page to show beside the original's.
      const result = await python.run(reducer.best(), pythonRun.needle, pythonRun.limitMs);
      if (run === mine) post({ type: 'result', run, result });
    }
  } else schedule(delay);
}

/**
 * runFor with Python as the oracle: each candidate awaits its run.
 * @param {number} count
 * @param {number} ms
 * @returns {Promise<{ events: CandidateEvent[], done: boolean }>}
 */
async function runPython(count, ms) {
  busy = true;
  try {
    /** @type {CandidateEvent[]} */
    const events = [];
    const r = /** @type {Scheduler} */ (reducer);
    const oracle = /** @type {NonNullable<typeof pythonRun>} */ (pythonRun);
    const mine = run;
    const until = performance.now() + ms;
    while (events.length < count && performance.now() < until) {
      const action = r.fill().find((a) => a.kind === 'run');
      if (!action) break;
      const { candidate } = action;
      const result = await python.run(candidate.source, oracle.needle, oracle.limitMs);
      // Stopped or restarted meanwhile: this scheduler is gone.
      if (run !== mine || reducer !== r) return { events: [], done: false };
      const fails = oracle.matchQuoted ? result.foundAnywhere : result.found;
      events.push(...report(r, candidate, fails ? 'interesting' : 'uninteresting', result.timedOut));
      if (!running && count === Infinity) break;
    }
    return { events, done: r.isDone() || (events.length === 0 && count > 0) };
  } finally {
    busy = false;
  }
}

/**
 * Reports a verdict and turns what the scheduler answers into log events.
 * @param {Scheduler} r
 * @param {Candidate} candidate
 * @param {'interesting' | 'uninteresting'} verdict
 * @param {boolean} [timedOut]
 * @returns {CandidateEvent[]}
 */
function report(r, candidate, verdict, timedOut = false) {
  /** @type {CandidateEvent[]} */
  const events = [];
  for (const action of r.finished(candidate.id, verdict)) {
    if (action.kind !== 'report') continue;
    tried++;
    const accepted = action.accepted !== undefined;
    if (!accepted) remember(candidate.id, candidate.source);
    const stats = r.stats();
    events.push({
      n: tried,
      id: candidate.id,
      phase: candidate.phase,
      rewrites: candidate.rewrites,
      sites: candidate.sites,
      accepted,
      ...(timedOut ? { timedOut } : {}),
      bytes: encoder.encode(candidate.source).length,
      lines: countLines(candidate.source),
      bestBytes: stats.bestBytes,
      bestLines: stats.bestLines,
      ...(accepted ? { source: candidate.source } : {}),
    });
  }
  return events;
}

/**
 * Runs up to `count` candidates or for about `ms` milliseconds.
 * @param {number} count
 * @param {number} ms
 * @returns {{ events: CandidateEvent[], done: boolean }}
 */
function runFor(count, ms) {
  /** @type {CandidateEvent[]} */
  const events = [];
  const r = /** @type {Scheduler} */ (reducer);
  const until = performance.now() + ms;
  while (events.length < count && performance.now() < until) {
    // With one job the scheduler hands out one candidate, then reports its verdict.
    const run = r.fill().find((action) => action.kind === 'run');
    if (!run) break;
    const { candidate } = run;
    events.push(...report(r, candidate, judge(candidate) ? 'interesting' : 'uninteresting'));
  }
  return { events, done: r.isDone() || (events.length === 0 && count > 0) };
}

/**
 * The mocked oracle's verdict. A predicate that throws on a candidate counts as "not
 * the same failure", as a crash of the test script would; the user hears of it once.
 * @param {Candidate} candidate
 */
function judge(candidate) {
  try {
    return /** @type {(source: string) => boolean} */ (predicate)(candidate.source);
  } catch (e) {
    oracleErrors++;
    if (oracleErrors === 1) {
      post({
        type: 'error',
        run,
        where: 'oracle',
        message: `${message(e)} (counted as not failing)`,
        fatal: false,
      });
    }
    return false;
  }
}

/** @param {{ events: CandidateEvent[], done: boolean }} batch */
function flush({ events, done }) {
  if (!reducer) return;
  post({
    type: 'progress',
    run,
    events,
    stats: reducer.stats(),
    done,
    ...(done ? { best: reducer.best() } : {}),
  });
}

/** @param {number} ms */
function schedule(ms) {
  if (timer === null) timer = setTimeout(tick, ms);
}

function halt() {
  running = false;
  if (timer !== null) clearTimeout(timer);
  timer = null;
}

function free() {
  recent.clear();
  recentBytes = 0;
  reducer?.free();
  reducer = null;
  predicate = null;
}

/** @param {string} text */
function countLines(text) {
  let n = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) n++;
  return text.length > 0 && !text.endsWith('\n') ? n + 1 : n;
}

/**
 * The engine's error as plain data (an Error's own properties do not survive
 * postMessage in every browser).
 * @param {unknown} e
 */
function engineError(e) {
  const err = /** @type {{ message?: string, code?: string, line?: number, column?: number }} */ (e ?? {});
  return { message: message(e), code: err.code, line: err.line, column: err.column };
}

/** @param {unknown} e */
function message(e) {
  return e instanceof Error ? e.message : String(e);
}

/** @param {object} msg */
function post(msg) {
  self.postMessage(msg);
}
