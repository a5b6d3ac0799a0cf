// DOM rendering of the pure models: code with marked segments, line diffs, the chart.
// Text always goes in through textContent, never innerHTML: programs are user input.

import { shortNumber } from './chart.js';

const SVG = 'http://www.w3.org/2000/svg';

/**
 * @param {string} tag
 * @param {Record<string, string>} [attrs]
 * @param {Array<Node | string>} [children]
 * @returns {HTMLElement}
 */
export function h(tag, attrs = {}, children = []) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, v);
  node.append(...children);
  return node;
}

/**
 * @param {string} tag
 * @param {Record<string, string | number>} [attrs]
 * @returns {SVGElement}
 */
function s(tag, attrs = {}) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) node.setAttribute(k, String(v));
  return node;
}

/**
 * Renders `text` line by line with line numbers; each segment becomes a span whose
 * classes say whether a site or frozen code covers it.
 * @param {HTMLElement} container
 * @param {string} text
 * @param {import('./highlight.js').Segment[]} segments
 * @param {number | null} selected index of the selected site
 */
export function renderCode(container, text, segments, selected) {
  const frag = document.createDocumentFragment();
  let lineNo = 1;
  let code = newLine(frag, lineNo);
  for (const seg of segments) {
    const parts = text.slice(seg.from, seg.to).split('\n');
    parts.forEach((part, i) => {
      if (i > 0) code = newLine(frag, ++lineNo);
      if (part === '') return;
      if (seg.sites.length === 0 && !seg.frozen) {
        code.append(part);
        return;
      }
      const span = h('span', {}, [part]);
      if (seg.frozen) span.classList.add('frozen');
      if (seg.sites.length > 0) {
        span.classList.add('site', `depth-${Math.min(seg.sites.length, 3)}`);
        // A click picks the innermost site under the pointer.
        span.dataset.site = String(seg.sites[seg.sites.length - 1]);
        // Every covering site, so one wholly covered by inner sites is still found.
        span.dataset.sites = seg.sites.join(' ');
        if (selected !== null && seg.sites.includes(selected)) span.classList.add('selected');
      }
      code.append(span);
    });
  }
  // A final newline does not make an empty numbered line.
  if (text.endsWith('\n') && frag.lastChild) frag.removeChild(frag.lastChild);
  container.replaceChildren(frag);
}

/**
 * @param {DocumentFragment} frag
 * @param {number} n
 * @returns {HTMLElement} the element that holds the line's code
 */
function newLine(frag, n) {
  const code = h('span', { class: 'cc' });
  frag.append(
    h('div', { class: 'cl' }, [h('span', { class: 'ln', 'aria-hidden': 'true' }, [String(n)]), code]),
  );
  return code;
}

/** Lines of a diff built per task: a program of thousands stays off the page's thread. */
const DIFF_CHUNK = 500;
/** @type {WeakMap<HTMLElement, ReturnType<typeof setTimeout>>} */
const pendingChunks = new WeakMap();

/**
 * Renders a line diff: every line of the new text, with deleted lines in place. Long
 * ones are built in chunks of 500 lines, one task each; `data-rendering` is set on the
 * container until the last is in, and `done` runs then.
 * @param {HTMLElement} container
 * @param {import('./diff.js').DiffLine[]} diff
 * @param {() => void} [done]
 */
export function renderDiff(container, diff, done) {
  clearTimeout(pendingChunks.get(container));
  container.replaceChildren(diffChunk(diff, 0));
  /** @param {number} from */
  const next = (from) => {
    if (from >= diff.length) {
      delete container.dataset.rendering;
      pendingChunks.delete(container);
      done?.();
      return;
    }
    container.dataset.rendering = 'true';
    pendingChunks.set(
      container,
      setTimeout(() => {
        container.append(diffChunk(diff, from));
        next(from + DIFF_CHUNK);
      }, 0),
    );
  };
  next(DIFF_CHUNK);
}

/**
 * @param {import('./diff.js').DiffLine[]} diff
 * @param {number} from
 */
function diffChunk(diff, from) {
  const frag = document.createDocumentFragment();
  const sign = { same: ' ', add: '+', del: '−' };
  const label = { same: '', add: 'added: ', del: 'removed: ' };
  for (const line of diff.slice(from, from + DIFF_CHUNK)) {
    frag.append(
      h('div', { class: `cl dl ${line.op}` }, [
        h('span', { class: 'ln', 'aria-hidden': 'true' }, [String(line.newLine ?? line.oldLine ?? '')]),
        h('span', { class: 'sign', 'aria-hidden': 'true' }, [sign[line.op]]),
        ...(line.op === 'same' ? [] : [h('span', { class: 'visually-hidden' }, [label[line.op]])]),
        h('span', { class: 'cc' }, [line.text]),
      ]),
    );
  }
  return frag;
}

/**
 * Draws a chart model into an <svg> whose viewBox matches the model's frame.
 * @param {SVGSVGElement} svg
 * @param {import('./chart.js').ChartModel} model
 */
export function renderChart(svg, model) {
  const { frame } = model;
  svg.setAttribute('viewBox', `0 0 ${frame.width} ${frame.height}`);
  const bottom = frame.height - frame.bottom;
  const right = frame.width - frame.right;
  const nodes = [];
  if (model.bytesPath === '') {
    // Nothing to scale yet: a baseline and a word, not an axis of made-up numbers.
    nodes.push(s('line', { class: 'baseline', x1: frame.left, x2: right, y1: bottom, y2: bottom }));
    nodes.push(
      text(
        'No reduction yet: press Play.',
        (frame.left + right) / 2,
        (frame.top + bottom) / 2,
        'middle',
        'axis',
      ),
    );
    svg.replaceChildren(...nodes);
    return;
  }
  for (const t of model.bytesTicks) {
    nodes.push(s('line', { class: 'grid', x1: frame.left, x2: right, y1: t.y, y2: t.y }));
    nodes.push(text(shortNumber(t.value), frame.left - 6, t.y + 4, 'end', 'axis bytes'));
  }
  for (const t of model.linesTicks) {
    nodes.push(text(shortNumber(t.value), right + 6, t.y + 4, 'start', 'axis lines'));
  }
  for (const t of model.xTicks) {
    nodes.push(s('line', { class: 'tick', x1: t.x, x2: t.x, y1: bottom, y2: bottom + 4 }));
    nodes.push(text(shortNumber(t.value), t.x, bottom + 18, 'middle', 'axis'));
  }
  nodes.push(s('line', { class: 'baseline', x1: frame.left, x2: right, y1: bottom, y2: bottom }));
  nodes.push(text('candidates tried', (frame.left + right) / 2, frame.height - 4, 'middle', 'axis title'));
  nodes.push(s('path', { class: 'series bytes', d: model.bytesPath }));
  nodes.push(s('path', { class: 'series lines', d: model.linesPath }));
  svg.replaceChildren(...nodes);
}

/**
 * @param {string} label
 * @param {number} x
 * @param {number} y
 * @param {string} anchor
 * @param {string} cls
 */
function text(label, x, y, anchor, cls) {
  const node = s('text', { x, y, 'text-anchor': anchor, class: cls });
  node.textContent = label;
  return node;
}
