// The Reduce tab: talks to the worker that runs the engine, and shows what it does:
// a log of candidates, the best program with its last accepted change, a size chart
// and the statistics.

import { layoutChart } from './chart.js';
import { createDiffView } from './diffview.js';
import { h, renderChart } from './view.js';

/**
 * @typedef {import('./worker.js').CandidateEvent} CandidateEvent
 * @typedef {import('../pkg/autodd_wasm.js').Stats} Stats
 * @typedef {'idle' | 'ready' | 'playing' | 'paused' | 'done' | 'failed'} RunState
 */

/**
 * @typedef {object} Elements
 * @property {HTMLElement} panel
 * @property {HTMLButtonElement} play
 * @property {HTMLButtonElement} step
 * @property {HTMLButtonElement} restart
 * @property {HTMLInputElement} speed
 * @property {HTMLOutputElement} speedLabel
 * @property {HTMLElement} status
 * @property {HTMLElement} notes warnings of the engine and errors of the oracle
 * @property {HTMLElement} stats
 * @property {SVGSVGElement} chart
 * @property {HTMLElement} best
 * @property {HTMLElement} bestCaption
 * @property {HTMLElement} log
 * @property {HTMLElement} pythonInfo which Python ran the candidates
 * @property {HTMLElement} outputs the original's and the result's output (Python in the browser)
 * @property {HTMLElement} originalOutput
 * @property {HTMLElement} resultOutput
 * @property {HTMLButtonElement} copyResult
 * @property {WebAssembly.Module} engine the engine, compiled once by the page
 */

/**
 * @typedef {{ mode: 'python', needle: string } | { mode: 'mocked', predicate: string }} OracleInput
 * @typedef {{ stdoutTail: string, stderrTail: string, exitCode: number, timedOut: boolean }} RunOutput
 */

// Delay between candidates at each notch of the speed slider; 0 runs flat out.
const SPEEDS = [
  { delay: 1000, label: '1 / s' },
  { delay: 250, label: '4 / s' },
  { delay: 50, label: '20 / s' },
  { delay: 10, label: '100 / s' },
  { delay: 0, label: 'max' },
];
// How long a run with the mocked predicate may go without a word from its worker
// (the slowest speed pauses 1 s between candidates).
const HANG_MS = 3000;
// Older rows are dropped: the log is for watching, the statistics keep the totals.
const MAX_LOG_ROWS = 400;
// Margins of the chart; its width follows the element, so text is drawn at 1:1.
const MARGINS = { top: 12, right: 44, bottom: 36, left: 48 };

/**
 * @param {Elements} els
 * @param {() => { source: string, oracle: OracleInput }} inputs the program and oracle to reduce
 */
export function createReduction(els, inputs) {
  /** @type {Worker} */
  let worker = spawn();
  let run = 0;
  /** @type {RunState} */
  let state = 'idle';
  // The inputs changed since the run started: Play starts over.
  let stale = true;
  let engineReady = false;
  /** A Step was asked for and its candidate is not back yet. */
  let stepping = false;
  /** @type {Array<() => void>} */
  let pending = [];

  let tried = 0;
  let best = '';
  let before = '';
  /** @type {Stats | null} */
  let stats = null;
  /** @type {{ x: number, y: number }[]} */
  let bytesSeries = [];
  /** @type {{ x: number, y: number }[]} */
  let linesSeries = [];
  let elapsed = 0;
  let since = 0;
  let drawQueued = false;
  /** @type {string[]} */
  let notes = [];
  const bestView = createDiffView(els.best, 'The best program, its last accepted change marked');
  /** The texts the best program's view shows now. */
  let shown = { before: '', best: '' };
  /** The best program from each accepted candidate on (n 0: the original). */
  /** @type {{ n: number, source: string }[]} */
  let bases = [];
  /** The log's candidate the program view shows instead of the best, if any. */
  /** @type {number | null} */
  let viewing = null;
  /** @type {{ id: number, show: (source: string) => void } | null} */
  let pendingCandidate = null;
  const backToBest = h('button', { type: 'button', class: 'small', id: 'back-to-best' }, [
    'Show the best program',
  ]);
  backToBest.addEventListener('click', () => showBest());
  /** The message Python in the browser looks for in this run ('' with the mocked oracle). */
  let needle = '';
  els.copyResult.addEventListener('click', () => {
    const command = [
      '',
      '# Found by autodd in the browser (Python in the browser). To confirm it with your own Python:',
      `#   python3 result.py    # should print: ${needle}`,
      '# and to reduce the original with the command-line tool:',
      `#   autodd program.py --err-msg ${shellQuote(needle)} -o result.py`,
      '',
    ].join('\n');
    navigator.clipboard?.writeText(best.replace(/\n*$/, '\n') + command).catch(() => {});
  });

  // The mocked predicate runs in the worker, synchronously: one that never returns
  // stops its messages. While a run with it should be progressing, a silence longer
  // than the slowest speed's pause means a hang: the worker is replaced.
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let watchdog;
  let mocked = false;

  /** A reduction worker, wired to this view. */
  function spawn() {
    const w = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
    w.onmessage = (event) => {
      if (event.target !== worker) return; // a worker that was replaced
      armWatchdog();
      onMessage(event.data);
    };
    w.onerror = (e) => fail(`The worker failed: ${e.message}`);
    w.postMessage({ type: 'engine', module: els.engine });
    return w;
  }

  function armWatchdog() {
    clearTimeout(watchdog);
    watchdog = undefined;
    if (mocked && engineReady && (state === 'playing' || state === 'ready' || stepping)) {
      watchdog = setTimeout(onHang, HANG_MS);
    }
  }

  function onHang() {
    worker.terminate();
    engineReady = false;
    pending = [];
    worker = spawn();
    worker.postMessage({ type: 'speed', delay: (SPEEDS[Number(els.speed.value)] ?? SPEEDS[0]).delay });
    run++;
    stale = true;
    stepping = false;
    fail(
      `Oracle: the predicate did not return within ${HANG_MS / 1000} s on a candidate (an endless loop?); ` +
        'the reduction was stopped and its worker restarted.',
    );
  }

  els.play.addEventListener('click', () => togglePlay());
  els.step.addEventListener('click', () => step());
  els.restart.addEventListener('click', () => restart(false));
  els.speed.addEventListener('input', () => applySpeed());
  applySpeed();
  draw();
  new ResizeObserver(() => queueDraw()).observe(els.chart);

  function applySpeed() {
    const speed = SPEEDS[Number(els.speed.value)] ?? SPEEDS[SPEEDS.length - 1];
    els.speedLabel.value = speed.label;
    els.speed.setAttribute('aria-valuetext', speed.label);
    worker.postMessage({ type: 'speed', delay: speed.delay });
  }

  /** @param {() => void} action runs once the worker has loaded the engine */
  function whenReady(action) {
    if (engineReady) action();
    else pending.push(action);
  }

  /** @param {boolean} play */
  function restart(play) {
    const { source, oracle } = inputs();
    needle = oracle.mode === 'python' ? oracle.needle : '';
    mocked = oracle.mode === 'mocked';
    run++;
    stale = false;
    resetView();
    setState('ready');
    setStatus('Starting…');
    const thisRun = run;
    whenReady(() => {
      worker.postMessage({ type: 'start', run: thisRun, source, oracle });
      if (play) {
        worker.postMessage({ type: 'play' });
        setState('playing');
      }
    });
  }

  function togglePlay() {
    if (els.play.disabled) return;
    if (state === 'playing') {
      worker.postMessage({ type: 'pause' });
      setState('paused');
    } else if (stale || state === 'idle' || state === 'done' || state === 'failed') {
      restart(true);
    } else {
      worker.postMessage({ type: 'play' });
      setState('playing');
    }
  }

  function step() {
    if (els.step.disabled) return;
    if (stale || state === 'idle' || state === 'done' || state === 'failed') {
      restart(false);
      whenReady(() => worker.postMessage({ type: 'step' }));
      setState('paused');
      stepping = true;
      armWatchdog();
      return;
    }
    worker.postMessage({ type: 'step' });
    setState('paused');
    stepping = true;
    armWatchdog();
  }

  /** @param {any} msg */
  function onMessage(msg) {
    if (msg.type === 'ready') {
      engineReady = true;
      const actions = pending;
      pending = [];
      for (const action of actions) action();
      if (state === 'idle') setStatus('Ready. Press Play (Space) to reduce, or Step (N) for one candidate.');
      return;
    }
    if (msg.type === 'python') {
      els.pythonInfo.textContent = `Python ${msg.python} (Pyodide ${msg.pyodide}) runs the candidates, in this page.`;
      els.pythonInfo.dataset.python = msg.python;
      return;
    }
    if (msg.run !== run) return; // from a run that was replaced
    switch (msg.type) {
      case 'candidate': {
        const wanted = pendingCandidate;
        if (wanted && wanted.id === msg.id) {
          pendingCandidate = null;
          if (msg.source === null) {
            els.bestCaption.textContent = 'That candidate is no longer kept: only the latest 400 are.';
          } else {
            wanted.show(msg.source);
          }
        }
        break;
      }
      case 'result':
        showOutput(els.resultOutput, msg.result);
        els.copyResult.disabled = false;
        break;
      case 'started':
        els.outputs.hidden = !msg.original;
        if (msg.original) showOutput(els.originalOutput, msg.original);
        best = msg.best;
        before = msg.best;
        bases = [{ n: 0, source: msg.best }];
        stats = msg.stats;
        notes = msg.warnings.map((/** @type {string} */ w) => `Warning: ${w}`);
        bytesSeries = [{ x: 0, y: msg.stats.bestBytes }];
        linesSeries = [{ x: 0, y: msg.stats.bestLines }];
        setStatus(state === 'playing' ? 'Reducing…' : 'Started: paused before the first candidate.');
        queueDraw();
        break;
      case 'progress':
        stepping = false;
        progress(msg.events, msg.stats, msg.done, msg.best);
        break;
      case 'error':
        if (msg.fatal === false) {
          notes.push(`Oracle: ${msg.message}`);
          queueDraw();
        } else {
          if (msg.original) {
            els.outputs.hidden = false;
            showOutput(els.originalOutput, msg.original);
          }
          const where =
            msg.where === 'program' && msg.line ? ` (line ${msg.line}, column ${msg.column})` : '';
          fail(`${msg.where === 'oracle' ? 'Oracle' : 'Program'}: ${msg.message}${where}`);
        }
        break;
    }
  }

  /**
   * @param {CandidateEvent[]} events
   * @param {Stats} newStats
   * @param {boolean} done
   * @param {string | undefined} finalBest
   */
  function progress(events, newStats, done, finalBest) {
    stats = newStats;
    const rows = document.createDocumentFragment();
    for (const ev of events) {
      tried = ev.n;
      if (ev.accepted && ev.source !== undefined) {
        before = best;
        best = ev.source;
        bases.push({ n: ev.n, source: ev.source });
        bytesSeries.push({ x: ev.n, y: ev.bestBytes });
        linesSeries.push({ x: ev.n, y: ev.bestLines });
      }
      rows.append(logRow(ev));
    }
    const wrap = /** @type {HTMLElement} */ (els.log.closest('.log-wrap'));
    const atBottom = wrap.scrollTop + wrap.clientHeight >= wrap.scrollHeight - 8;
    els.log.append(rows);
    while (els.log.childElementCount > MAX_LOG_ROWS) els.log.firstElementChild?.remove();
    if (atBottom) wrap.scrollTop = wrap.scrollHeight;
    if (done) {
      if (finalBest !== undefined && finalBest !== best) {
        before = best;
        best = finalBest;
      }
      if (since) elapsed += performance.now() - since;
      since = 0;
      // Drawn now, not on the next frame: once the state says done, the page shows the end.
      draw();
      setState('done');
      setStatus(summary());
      return;
    }
    queueDraw();
  }

  /** @param {CandidateEvent} ev */
  function logRow(ev) {
    const rewrites = ev.rewrites.join(', ') + (ev.sites > 1 ? ` ×${ev.sites}` : '');
    const row = h(
      'tr',
      { class: ev.accepted ? 'accepted' : 'rejected', tabindex: '0', 'data-n': String(ev.n) },
      [
        h('td', {}, [String(ev.n)]),
        h('td', {}, [ev.phase]),
        h('td', { class: 'rw' }, [rewrites || '—']),
        h('td', { class: 'verdict' }, [ev.accepted ? '✓ kept' : ev.timedOut ? '⏱ timed out' : '✗ rejected']),
        h('td', { class: 'num' }, [`${ev.bytes} B · ${ev.lines} L`]),
      ],
    );
    const open = () => showCandidate(ev);
    row.addEventListener('click', open);
    row.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') open();
    });
    return row;
  }

  /**
   * Shows a candidate of the log in the program view: its change against the best
   * program it was made from, and its verdict.
   * @param {CandidateEvent} ev
   */
  function showCandidate(ev) {
    const base = [...bases].reverse().find((b) => b.n < ev.n)?.source ?? bases[0]?.source ?? '';
    const verdict = ev.accepted ? 'kept' : ev.timedOut ? 'timed out' : 'rejected';
    const say = (/** @type {string} */ source) => {
      viewing = ev.n;
      bestView.show(base, source);
      els.bestCaption.replaceChildren(
        `Candidate #${ev.n} (${ev.phase}: ${ev.rewrites.join(', ') || '—'}), ${verdict}: its change against the best program then. `,
        backToBest,
      );
      els.panel.dataset.viewing = String(ev.n);
    };
    if (ev.source !== undefined) {
      say(ev.source);
      return;
    }
    pendingCandidate = { id: ev.id, show: say };
    worker.postMessage({ type: 'candidate', id: ev.id });
  }

  /** Back from a candidate to the best program. */
  function showBest() {
    viewing = null;
    delete els.panel.dataset.viewing;
    shown = { before: '', best: '' };
    draw();
  }

  function queueDraw() {
    if (drawQueued) return;
    drawQueued = true;
    requestAnimationFrame(() => {
      drawQueued = false;
      draw();
    });
  }

  function draw() {
    const width = Math.max(280, Math.round(els.chart.getBoundingClientRect().width) || 600);
    const frame = { ...MARGINS, width, height: width < 500 ? 180 : 220 };
    renderChart(els.chart, layoutChart({ bytes: bytesSeries, lines: linesSeries, tried, frame }));
    renderStats();
    // Redrawn only when it changed: a program of thousands of lines is a large DOM.
    if (viewing === null && best !== '' && (shown.before !== before || shown.best !== best)) {
      shown = { before, best };
      bestView.show(before, best);
      els.bestCaption.textContent =
        before === best
          ? 'No change accepted yet.'
          : 'The last accepted change is marked: added and changed lines in green, removed ones in red and struck through.';
    }
    els.notes.replaceChildren(...notes.map((note) => h('li', {}, [note])));
  }

  function renderStats() {
    if (!stats) {
      els.stats.replaceChildren();
      return;
    }
    const pct = (/** @type {number} */ a, /** @type {number} */ b) =>
      b > 0 ? ` (${((100 * a) / b).toFixed(1)}%)` : '';
    const time = elapsed + (since ? performance.now() - since : 0);
    const items = [
      ['Tried', String(tried)],
      ['Accepted', String(stats.accepted)],
      ['Cache hits', String(stats.cacheHits)],
      ['Phase', `${stats.phase} · round ${stats.round}`],
      ['Lines', `${stats.originalLines} → ${stats.bestLines}${pct(stats.bestLines, stats.originalLines)}`],
      ['Bytes', `${stats.originalBytes} → ${stats.bestBytes}${pct(stats.bestBytes, stats.originalBytes)}`],
      ['Time', `${(time / 1000).toFixed(2)} s`],
    ];
    els.stats.replaceChildren(...items.map(([k, v]) => h('div', {}, [h('dt', {}, [k]), h('dd', {}, [v])])));
  }

  function summary() {
    if (!stats) return 'Done.';
    const lines = `${stats.originalLines} → ${stats.bestLines} lines`;
    const bytes = `${stats.originalBytes} → ${stats.bestBytes} bytes`;
    return `Done: ${lines}, ${bytes}; ${tried} candidates tried, ${stats.accepted} accepted, in ${(elapsed / 1000).toFixed(2)} s.`;
  }

  function resetView() {
    tried = 0;
    best = '';
    before = '';
    stats = null;
    bytesSeries = [];
    linesSeries = [];
    elapsed = 0;
    since = 0;
    notes = [];
    els.log.replaceChildren();
    bestView.clear();
    shown = { before: '', best: '' };
    bases = [];
    viewing = null;
    pendingCandidate = null;
    delete els.panel.dataset.viewing;
    els.outputs.hidden = true;
    els.originalOutput.textContent = '';
    els.resultOutput.textContent = '';
    els.copyResult.disabled = true;
    els.bestCaption.textContent = 'Shown here once a reduction starts.';
    draw();
  }

  /** @param {string} message */
  function fail(message) {
    if (since) elapsed += performance.now() - since;
    since = 0;
    setState('failed');
    setStatus(message, true);
  }

  /** @param {RunState} next */
  function setState(next) {
    if (next === 'playing' && !since) since = performance.now();
    if (next !== 'playing' && since) {
      elapsed += performance.now() - since;
      since = 0;
    }
    state = next;
    els.panel.dataset.state = next;
    armWatchdog();
    els.play.textContent = next === 'playing' ? 'Pause' : 'Play';
    els.play.setAttribute('aria-pressed', String(next === 'playing'));
    if (next === 'paused') setStatus('Paused.');
    if (next === 'playing' && stats) setStatus('Reducing…');
  }

  /**
   * @param {string} message
   * @param {boolean} [isError]
   */
  function setStatus(message, isError = false) {
    els.status.textContent = message;
    els.status.classList.toggle('error', isError);
  }

  return {
    togglePlay,
    step,
    restart: () => restart(false),
    /** The program or oracle changed: the next Play starts over. */
    invalidate() {
      if (state === 'playing') {
        worker.postMessage({ type: 'pause' });
        setState('paused');
      }
      if (!stale && state !== 'idle')
        setStatus('The program or oracle changed: Play starts a new reduction.');
      stale = true;
    },
    /** Forgets the current run (a new example). */
    clear() {
      run++;
      worker.postMessage({ type: 'stop' });
      stale = true;
      resetView();
      setState('idle');
      setStatus(
        engineReady
          ? 'Ready. Press Play (Space) to reduce, or Step (N) for one candidate.'
          : 'Loading the engine…',
      );
    },
    /** The current best program. */
    best: () => best,
    /**
     * Play and Step work only on a program that parses.
     * @param {string | null} why what keeps the program from being reduced, or null
     */
    setRunnable(why) {
      for (const button of [els.play, els.step]) {
        button.disabled = why !== null;
        if (why === null) button.removeAttribute('title');
        else button.title = why;
      }
    },
  };
}

/**
 * Shows what a run printed.
 * @param {HTMLElement} el
 * @param {RunOutput} output
 */
function showOutput(el, output) {
  const parts = [];
  if (output.stdoutTail) parts.push(output.stdoutTail.replace(/\n*$/, '\n'));
  if (output.stderrTail) parts.push(output.stderrTail.replace(/\n*$/, '\n'));
  const end = output.timedOut ? '(stopped at its time limit)' : `(exit status ${output.exitCode})`;
  el.textContent = `${parts.join('')}${end}`;
}

/**
 * `word` quoted for a POSIX shell.
 * @param {string} word
 */
function shellQuote(word) {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
