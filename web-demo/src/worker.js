// The reduction, off the page's thread: this worker loads the same wasm engine as
// every other host and drives the same scheduler as the Node host (fill → mocked
// oracle → finished), one candidate at a time, posting progress in batches so the
// page stays responsive at any speed.
//
// Messages in:  start { run, source, predicate } · play · pause · step · speed { delay } · stop
// Messages out: ready · started { run, stats, warnings, best } · progress { run, events, stats, done, best? }
//               · error { run, where: 'program' | 'oracle' | 'engine', message, code?, line?, column? }

import init, { Reducer, Scheduler } from '../pkg/autodd_wasm.js';
import { compilePredicate } from './oracle.js';

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
 */

// At full speed, how long one batch may run before the worker posts it and looks at
// its inbox (so "pause" is heard within a frame or two).
const SLICE_MS = 30;
const encoder = new TextEncoder();

/** @type {Scheduler | null} */
let reducer = null;
/** @type {((source: string) => boolean) | null} */
let predicate = null;
let run = 0;
let tried = 0;
let running = false;
let delay = 0;
/** @type {ReturnType<typeof setTimeout> | null} */
let timer = null;
let oracleErrors = 0;

const ready = init().then(
  () => post({ type: 'ready' }),
  (e) => post({ type: 'error', run: 0, where: 'engine', message: `cannot load the engine: ${message(e)}` }),
);

self.onmessage = async (event) => {
  await ready;
  const msg = event.data;
  switch (msg.type) {
    case 'start':
      start(msg.run, msg.source, msg.predicate);
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
      if (reducer) flush(runFor(1, Infinity));
      break;
    case 'speed':
      delay = Math.max(0, Number(msg.delay) || 0);
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
  run = newRun;
  tried = 0;
  oracleErrors = 0;
  try {
    predicate = compilePredicate(body);
  } catch (e) {
    post({ type: 'error', run, where: 'oracle', message: message(e) });
    return;
  }
  /** @type {string[]} */
  let warnings;
  try {
    const parsed = new Reducer(source);
    warnings = parsed.warnings();
    reducer = new Scheduler(parsed, { jobs: 1 });
    parsed.free();
  } catch (e) {
    post({ type: 'error', run, where: 'program', ...engineError(e) });
    return;
  }
  // Like the CLI, refuse a predicate that the original program does not satisfy:
  // the reduction would have nothing to keep.
  let interesting = false;
  try {
    interesting = predicate(reducer.best());
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
  post({ type: 'started', run, stats: reducer.stats(), warnings, best: reducer.best() });
}

/** Runs one batch, posts it, and schedules the next while playing. */
function tick() {
  timer = null;
  if (!running || !reducer) return;
  const batch = delay === 0 ? runFor(Infinity, SLICE_MS) : runFor(1, Infinity);
  flush(batch);
  if (batch.done) running = false;
  else schedule(delay);
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
    const verdict = judge(candidate) ? 'interesting' : 'uninteresting';
    for (const action of r.finished(candidate.id, verdict)) {
      if (action.kind !== 'report') continue;
      tried++;
      const accepted = action.accepted !== undefined;
      const stats = r.stats();
      events.push({
        n: tried,
        id: candidate.id,
        phase: candidate.phase,
        rewrites: candidate.rewrites,
        sites: candidate.sites,
        accepted,
        bytes: encoder.encode(candidate.source).length,
        lines: countLines(candidate.source),
        bestBytes: stats.bestBytes,
        bestLines: stats.bestLines,
        ...(accepted ? { source: candidate.source } : {}),
      });
    }
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
