// The pass playground and the normalized view. For one rewrite, every site where it
// applies in the normalized program is marked; picking a site shows the program with
// that one change applied (`applySite`) as a diff. Frozen code is shown as frozen.

import { createDiffView } from './diffview.js';
import { frozenRanges, segments, siteRanges } from './highlight.js';
import { pythonTokens, stringRanges } from './syntax.js';
import { h, renderCode } from './view.js';

/**
 * @typedef {object} Engine the wasm functions the playground uses
 * @property {() => string[]} rewriteNames
 * @property {(source: string, rewrite: string) => import('./highlight.js').Site[]} listSites
 * @property {(source: string, rewrite: string, index: number) => string} applySite
 */

/**
 * @typedef {object} Elements
 * @property {HTMLSelectElement} rewrite
 * @property {HTMLElement} count
 * @property {HTMLSelectElement} site
 * @property {HTMLButtonElement} prev
 * @property {HTMLButtonElement} next
 * @property {HTMLElement} sitesView
 * @property {HTMLElement} applied
 * @property {HTMLElement} normalized
 */

/**
 * @param {Engine} engine
 * @param {Elements} els
 */
export function createPlayground(engine, els) {
  /** @type {{ source: string, normalized: string } | null} */
  let program = null;
  /** @type {import('./highlight.js').Site[]} */
  let sites = [];
  /** @type {number | null} */
  let selected = null;
  /** @type {import('./highlight.js').Range[]} */
  let frozen = [];
  /** Syntax classes of the normalized program. */
  /** @type {import('./syntax.js').Token[]} */
  let tokens = [];

  const applied = createDiffView(els.applied, 'The normalized program with the selected site applied');

  for (const name of engine.rewriteNames()) els.rewrite.append(h('option', { value: name }, [name]));

  els.rewrite.addEventListener('change', () => refresh());
  els.site.addEventListener('change', () => select(Number(els.site.value)));
  els.prev.addEventListener('click', () => move(-1));
  els.next.addEventListener('click', () => move(1));
  els.sitesView.addEventListener('click', (e) => {
    const target = /** @type {HTMLElement} */ (e.target).closest('[data-site]');
    if (target instanceof HTMLElement) {
      select(sites.findIndex((site) => site.index === Number(target.dataset.site)));
    }
  });
  els.sitesView.addEventListener('keydown', (e) => {
    const step = { ArrowDown: 1, ArrowRight: 1, j: 1, ArrowUp: -1, ArrowLeft: -1, k: -1 }[e.key];
    if (step && sites.length > 0) {
      e.preventDefault();
      move(step);
    }
  });

  /** @param {number} delta */
  function move(delta) {
    if (sites.length === 0) return;
    const at = selected === null ? (delta > 0 ? -1 : 0) : selected;
    select((at + delta + sites.length) % sites.length);
  }

  /** Recomputes the sites of the chosen rewrite in the current program. */
  function refresh() {
    selected = null;
    sites = [];
    if (!program) {
      els.count.textContent = 'Fix the program to see sites.';
      els.site.replaceChildren();
      els.sitesView.replaceChildren();
      applied.clear();
      setNavEnabled(false);
      return;
    }
    try {
      sites = engine.listSites(program.source, els.rewrite.value);
    } catch (e) {
      els.count.textContent = `Cannot list sites: ${e instanceof Error ? e.message : String(e)}`;
    }
    const n = sites.length;
    els.count.textContent = n === 0 ? 'No site in this program.' : `${n} site${n === 1 ? '' : 's'}`;
    els.count.dataset.count = String(n);
    els.site.replaceChildren(
      ...sites.map((site, i) =>
        h('option', { value: String(i) }, [
          `#${i + 1}  line ${site.start.line}:${site.start.column}–${site.end.line}:${site.end.column}`,
        ]),
      ),
    );
    setNavEnabled(n > 0);
    paintSites();
    if (n > 0) select(0, false);
    else applied.note('Nothing to apply.', 'hint');
  }

  /** @param {boolean} on */
  function setNavEnabled(on) {
    els.site.disabled = !on;
    els.prev.disabled = !on;
    els.next.disabled = !on;
  }

  function paintSites() {
    if (!program) return;
    const text = program.normalized;
    const ranges = siteRanges(text, sites);
    renderCode(els.sitesView, text, segments(text, ranges, frozen), null, tokens);
  }

  /**
   * @param {number} index
   * @param {boolean} [scroll]
   */
  function select(index, scroll = true) {
    if (!program || !(index >= 0 && index < sites.length)) return;
    selected = index;
    els.site.value = String(index);
    for (const span of els.sitesView.querySelectorAll('.site')) {
      const el = /** @type {HTMLElement} */ (span);
      el.classList.toggle(
        'selected',
        (el.dataset.sites ?? '').split(' ').includes(String(sites[index].index)),
      );
    }
    const first = els.sitesView.querySelector('.site.selected');
    if (scroll && first instanceof HTMLElement) scrollWithin(els.sitesView, first);
    try {
      const after = engine.applySite(program.source, els.rewrite.value, sites[index].index);
      applied.show(program.normalized, after);
    } catch (e) {
      applied.note(`Cannot apply: ${e instanceof Error ? e.message : String(e)}`, 'error');
    }
  }

  return {
    /**
     * Shows a new program; null when it does not parse.
     * @param {{ source: string, normalized: string } | null} next
     */
    update(next) {
      program = next;
      tokens = next ? pythonTokens(next.normalized) : [];
      frozen = next ? frozenRanges(next.normalized, stringRanges(tokens)) : [];
      if (next) {
        renderCode(els.normalized, next.normalized, segments(next.normalized, [], frozen), null, tokens);
      } else {
        els.normalized.replaceChildren(
          h('p', { class: 'hint' }, ['Fix the program to see how autodd prints it.']),
        );
      }
      refresh();
    },
    /** @param {string} rewrite */
    chooseRewrite(rewrite) {
      els.rewrite.value = rewrite;
      refresh();
    },
    /** The rewrite chosen and the index of the site selected. */
    selection() {
      return { rewrite: els.rewrite.value, site: selected };
    },
    /** @param {number} index selects the site, if there is one */
    chooseSite(index) {
      select(index);
    },
  };
}

/**
 * Scrolls `container` (not the page) so that `child` is in its upper third.
 * @param {HTMLElement} container
 * @param {HTMLElement} child
 */
export function scrollWithin(container, child) {
  const top = child.getBoundingClientRect().top - container.getBoundingClientRect().top + container.scrollTop;
  container.scrollTop = Math.max(0, top - container.clientHeight / 3);
}
