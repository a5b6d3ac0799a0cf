// The page: wires the editor, the mocked oracle, the Reduce tab (engine in a worker)
// and the pass playground (engine on this thread, for instant site lookups).

import init, * as engine from '../pkg/autodd_wasm.js';
import { createEditor } from './editor.js';
import { EXAMPLES } from './examples.js';
import { splitLines } from './highlight.js';
import { compilePredicate, containsTextBody, containsTextOf } from './oracle.js';
import { createPlayground } from './playground.js';
import { createReduction } from './reduce.js';
import { decodeState, encodeState, loadLocal, saveLocal } from './share.js';
import { h } from './view.js';

/**
 * @template {HTMLElement} T
 * @param {string} id
 * @returns {T}
 */
function byId(id) {
  const el = document.getElementById(id);
  if (!el) throw new Error(`the page has no #${id}`);
  return /** @type {T} */ (el);
}

const els = {
  example: /** @type {HTMLSelectElement} */ (byId('example')),
  failure: byId('example-failure'),
  source: byId('source'),
  programStatus: byId('program-status'),
  predicate: /** @type {HTMLTextAreaElement} */ (byId('predicate')),
  simpleForm: /** @type {HTMLFormElement} */ (byId('simple-form')),
  contains: /** @type {HTMLInputElement} */ (byId('contains')),
  oracleStatus: byId('oracle-status'),
  mode: /** @type {HTMLSelectElement} */ (byId('oracle-mode')),
  needle: /** @type {HTMLInputElement} */ (byId('needle')),
  pythonOracle: byId('python-oracle'),
  mockedOracle: byId('mocked-oracle'),
};

/** The example menu's entry for a program typed or pasted in. */
const CUSTOM = 'custom';

/** The program is the user's own now: the example's name and hint no longer hold. */
function markCustom() {
  els.example.value = CUSTOM;
  els.failure.textContent = '';
}

/** The engine, compiled (web-demo/pkg/, in the sources and in the bundle alike). */
/** @type {WebAssembly.Module} */
let engineModule;

// Editing is debounced: normalizing and listing sites of a large program on every
// keystroke would make typing lag.
const DEBOUNCE_MS = 200;

try {
  // Compiled once here and handed to the reduction worker: the engine is fetched once.
  engineModule = await WebAssembly.compileStreaming(
    fetch(new URL('../pkg/autodd_wasm_bg.wasm', import.meta.url)),
  );
  await init({ module_or_path: engineModule });
} catch (e) {
  els.programStatus.textContent = `Cannot load the engine (pkg/autodd_wasm.js): ${e instanceof Error ? e.message : String(e)}`;
  els.programStatus.classList.add('error');
  throw e;
}

const editor = createEditor(els.source, () => {
  reduction.invalidate();
  markCustom();
  debounce('program', updateProgram);
  rememberState();
});

const reduction = createReduction(
  {
    panel: byId('panel-reduce'),
    play: /** @type {HTMLButtonElement} */ (byId('play')),
    step: /** @type {HTMLButtonElement} */ (byId('step')),
    restart: /** @type {HTMLButtonElement} */ (byId('restart')),
    speed: /** @type {HTMLInputElement} */ (byId('speed')),
    speedLabel: /** @type {HTMLOutputElement} */ (byId('speed-label')),
    status: byId('run-status'),
    notes: byId('run-notes'),
    stats: byId('stats'),
    chart: /** @type {SVGSVGElement} */ (/** @type {unknown} */ (byId('chart'))),
    best: byId('best'),
    bestCaption: byId('best-caption'),
    log: byId('log'),
    pythonInfo: byId('python-info'),
    outputs: byId('outputs'),
    originalOutput: byId('original-output'),
    resultOutput: byId('result-output'),
    copyResult: /** @type {HTMLButtonElement} */ (byId('copy-result')),
    engine: engineModule,
  },
  () => ({
    source: editor.text(),
    oracle:
      els.mode.value === 'python'
        ? { mode: 'python', needle: els.needle.value }
        : { mode: 'mocked', predicate: els.predicate.value },
  }),
);

const playground = createPlayground(engine, {
  rewrite: /** @type {HTMLSelectElement} */ (byId('rewrite')),
  count: byId('site-count'),
  site: /** @type {HTMLSelectElement} */ (byId('site')),
  prev: /** @type {HTMLButtonElement} */ (byId('site-prev')),
  next: /** @type {HTMLButtonElement} */ (byId('site-next')),
  sitesView: byId('sites-view'),
  applied: byId('applied'),
  normalized: byId('normalized'),
});

// --- Program ---------------------------------------------------------------------

/** Normalizes the program, shows a syntax error if any, refreshes the views. */
function updateProgram() {
  const source = editor.text();
  try {
    const normalized = engine.normalize(source);
    editor.markError(null);
    reduction.setRunnable(null);
    const lines = splitLines(source).length;
    setStatus(els.programStatus, [
      `${lines} lines, ${new TextEncoder().encode(source).length} bytes. Parses.`,
    ]);
    playground.update({ source, normalized });
  } catch (e) {
    const err = /** @type {{ message?: string, code?: string, line?: number, column?: number }} */ (e ?? {});
    editor.markError(
      err.line ? { line: err.line, column: err.column ?? 1, message: String(err.message ?? e) } : null,
    );
    reduction.setRunnable('The program does not parse: fix it first.');
    const parts = [];
    let message = String(err.message ?? e);
    if (err.code === 'syntax-error' && err.line) {
      parts.push(h('strong', {}, [`Syntax error at line ${err.line}, column ${err.column}`]), ': ');
      // The engine's message repeats both; the heading already says them.
      message = message.replace(/^syntax error:\s*/i, '').replace(/ at line \d+, column \d+$/, '');
    }
    parts.push(message);
    if (err.line) {
      const go = h('button', { type: 'button', class: 'small' }, ['Go to error']);
      go.addEventListener('click', () => editor.goTo(err.line ?? 1, err.column ?? 1));
      parts.push(' ', go);
    }
    setStatus(els.programStatus, parts, true);
    els.programStatus.dataset.code = String(err.code ?? 'error');
    playground.update(null);
  }
  updateOracle();
}

// --- Oracle ------------------------------------------------------------------------

/** Shows the oracle of the chosen mode; compiles the predicate and says what it answers. */
function updateOracle() {
  const python = els.mode.value === 'python';
  els.pythonOracle.hidden = !python;
  els.mockedOracle.hidden = python;
  if (python) {
    const empty = els.needle.value === '';
    setStatus(
      els.oracleStatus,
      [empty ? 'Give the text the failure prints.' : 'Each candidate runs under Python in this page.'],
      empty,
    );
    return;
  }
  const body = els.predicate.value;
  const text = containsTextOf(body);
  if (text !== null && document.activeElement !== els.contains) els.contains.value = text;
  try {
    // Compiling runs none of it: a syntax error is reported at once, here.
    compilePredicate(body);
  } catch (e) {
    setStatus(els.oracleStatus, [e instanceof Error ? e.message : String(e)], true);
    return;
  }
  const id = ++checkId;
  checkPredicate(id, body, editor.text()).then((answer) => {
    if (id !== checkId) return; // a later edit asked again
    if ('error' in answer) {
      setStatus(els.oracleStatus, [answer.error], true);
      return;
    }
    setStatus(
      els.oracleStatus,
      [
        answer.verdict
          ? '✓ True for the current program: it "fails", so it can be reduced.'
          : '✗ False for the current program: nothing to reduce until it is true.',
      ],
      !answer.verdict,
    );
  });
}

// The predicate runs in a worker of its own, with a time limit.
const CHECK_MS = 1000;
let checkId = 0;
/** @type {Worker | null} */
let checker = null;

/**
 * What the predicate answers for `source`, from the checking worker.
 * @param {number} id
 * @param {string} body
 * @param {string} source
 * @returns {Promise<{ verdict: boolean } | { error: string }>}
 */
function checkPredicate(id, body, source) {
  checker ??= new Worker(new URL('./check.js', import.meta.url), { type: 'module' });
  const worker = checker;
  return new Promise((resolve) => {
    const limit = setTimeout(() => {
      // An endless loop: the worker cannot be interrupted, only replaced.
      worker.terminate();
      if (checker === worker) checker = null;
      resolve({
        error: `the predicate did not return within ${CHECK_MS / 1000} s for the current program (an endless loop?)`,
      });
    }, CHECK_MS);
    worker.addEventListener('message', function answer(event) {
      if (event.data.id !== id) return;
      worker.removeEventListener('message', answer);
      clearTimeout(limit);
      resolve(
        event.data.verdict === undefined
          ? { error: event.data.error }
          : { verdict: Boolean(event.data.verdict) },
      );
    });
    worker.postMessage({ id, body, source });
  });
}

els.mode.addEventListener('change', () => {
  reduction.invalidate();
  updateOracle();
});
els.needle.addEventListener('input', () => {
  reduction.invalidate();
  updateOracle();
});
els.predicate.addEventListener('input', () => {
  reduction.invalidate();
  debounce('oracle', updateOracle);
});
els.simpleForm.addEventListener('submit', (e) => {
  e.preventDefault();
  els.predicate.value = containsTextBody(els.contains.value);
  reduction.invalidate();
  updateOracle();
});

// --- Examples ------------------------------------------------------------------------

for (const ex of EXAMPLES) els.example.append(h('option', { value: ex.id }, [ex.title]));
els.example.append(h('option', { value: CUSTOM }, ['Custom: your own program']));

/** @param {string} id */
async function loadExample(id) {
  const ex = EXAMPLES.find((e) => e.id === id) ?? EXAMPLES[0];
  reduction.clear();
  setStatus(els.programStatus, [`Loading ${ex.url}…`]);
  try {
    const response = await fetch(ex.url);
    if (!response.ok) throw new Error(`${response.status} ${response.statusText}`);
    editor.setText(await response.text());
  } catch (e) {
    setStatus(
      els.programStatus,
      [`Cannot load ${ex.url}: ${e instanceof Error ? e.message : String(e)}`],
      true,
    );
    return;
  }
  els.failure.textContent = `With python3 it fails with: ${ex.failure}`;
  els.predicate.value = ex.predicate;
  els.needle.value = ex.needle;
  els.contains.value = '';
  updateProgram();
  rememberState();
}

els.example.addEventListener('change', () => {
  if (els.example.value !== CUSTOM) loadExample(els.example.value);
});

byId('copy-best').addEventListener('click', () => {
  navigator.clipboard?.writeText(reduction.best()).catch(() => {});
});
byId('edit-best').addEventListener('click', () => {
  const best = reduction.best();
  if (best === '') return;
  editor.setText(best);
  markCustom();
  reduction.clear();
  updateProgram();
  editor.focus();
});

// --- Tabs ------------------------------------------------------------------------------

const tabs = /** @type {HTMLButtonElement[]} */ ([...document.querySelectorAll('[role="tab"]')]);

/** @param {HTMLButtonElement} tab */
function selectTab(tab) {
  for (const t of tabs) {
    const on = t === tab;
    t.setAttribute('aria-selected', String(on));
    t.tabIndex = on ? 0 : -1;
    byId(t.getAttribute('aria-controls') ?? '').hidden = !on;
  }
}

for (const tab of tabs) {
  tab.addEventListener('click', () => selectTab(tab));
  tab.addEventListener('keydown', (e) => {
    const i = tabs.indexOf(tab);
    const next = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: tabs.length - 1 }[e.key];
    if (next === undefined) return;
    e.preventDefault();
    const target = tabs[(next + tabs.length) % tabs.length];
    selectTab(target);
    target.focus();
  });
}

// --- Shortcuts -------------------------------------------------------------------------

document.addEventListener('keydown', (e) => {
  if (e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented) return;
  // Typing, and Space on a focused control, keep their usual meaning.
  const target = /** @type {HTMLElement} */ (e.target);
  if (target.closest('input, textarea, select, [contenteditable]')) return;
  if (e.key === ' ' && target.closest('button, a, summary')) return;
  if (e.key === ' ') {
    e.preventDefault();
    reduction.togglePlay();
  } else if (e.key === 'n' || e.key === 'N') {
    reduction.step();
  } else if (e.key === 'r' || e.key === 'R') {
    reduction.restart();
  }
});

// --- Helpers ---------------------------------------------------------------------------

/**
 * @param {HTMLElement} el
 * @param {Array<Node | string>} parts
 * @param {boolean} [isError]
 */
function setStatus(el, parts, isError = false) {
  el.replaceChildren(...parts);
  el.classList.toggle('error', isError);
  delete el.dataset.code;
}

/** @type {Map<string, ReturnType<typeof setTimeout>>} */
const timers = new Map();

/**
 * @param {string} key
 * @param {() => void} fn
 */
function debounce(key, fn) {
  clearTimeout(timers.get(key));
  timers.set(key, setTimeout(fn, DEBOUNCE_MS));
}

// --- The state in the link and in local storage ------------------------------------

/** @returns {import('./share.js').PageState} */
function currentState() {
  const { rewrite, site } = playground.selection();
  return {
    program: editor.text(),
    mode: els.mode.value === 'mocked' ? 'mocked' : 'python',
    needle: els.needle.value,
    predicate: els.predicate.value,
    rewrite,
    site: site ?? 0,
  };
}

/** Writes the state into local storage and the link, which Share shows. */
async function writeState() {
  const state = currentState();
  saveLocal(state);
  history.replaceState(null, '', await encodeState(state));
  share.dataset.link = location.href;
}

/** writeState, once edits settle. */
function rememberState() {
  debounce('state', writeState);
}

/** @param {import('./share.js').PageState} state */
function restoreState(state) {
  editor.setText(state.program);
  markCustom();
  els.mode.value = state.mode;
  els.needle.value = state.needle;
  els.predicate.value = state.predicate;
  updateProgram();
  if (state.rewrite) playground.chooseRewrite(state.rewrite);
  playground.chooseSite(state.site);
}

const share = /** @type {HTMLButtonElement} */ (byId('share'));
share.addEventListener('click', async () => {
  await writeState();
  share.textContent = 'Link copied';
  setTimeout(() => (share.textContent = 'Share'), 2000);
  await navigator.clipboard?.writeText(location.href).catch(() => {});
});
for (const input of [els.needle, els.predicate]) input.addEventListener('input', rememberState);
for (const select of [els.mode, els.example, byId('rewrite'), byId('site')]) {
  select.addEventListener('change', rememberState);
}
for (const id of ['site-prev', 'site-next', 'sites-view', 'use-contains']) {
  byId(id).addEventListener('click', rememberState);
}
byId('sites-view').addEventListener('keydown', rememberState);

const saved = (await decodeState(location.hash)) ?? loadLocal();
if (saved) {
  restoreState(saved);
} else {
  await loadExample(EXAMPLES[0].id);
  playground.chooseRewrite('if-remover-1');
}
document.body.dataset.ready = 'true';
