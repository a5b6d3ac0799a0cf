// DOM rendering of the pure models: code with marked segments and the chart.
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
 * classes say whether a site or frozen code covers it, and the parts of it that
 * `tokens` cover get their syntax classes.
 * @param {HTMLElement} container
 * @param {string} text
 * @param {import('./highlight.js').Segment[]} segments
 * @param {number | null} selected index of the selected site
 * @param {import('./syntax.js').Token[]} [tokens] in order, not overlapping
 */
export function renderCode(container, text, segments, selected, tokens = []) {
  const frag = document.createDocumentFragment();
  let lineNo = 1;
  let code = newLine(frag, lineNo);
  let k = 0;
  /**
   * The text from `from` to `to` (one line's part of a segment), cut at tokens.
   * @param {number} from
   * @param {number} to
   * @returns {Array<Node | string>}
   */
  const highlighted = (from, to) => {
    /** @type {Array<Node | string>} */
    const out = [];
    while (k < tokens.length && tokens[k].to <= from) k++;
    let at = from;
    for (let t = k; t < tokens.length && tokens[t].from < to; t++) {
      const start = Math.max(tokens[t].from, at);
      const end = Math.min(tokens[t].to, to);
      if (start > at) out.push(text.slice(at, start));
      out.push(h('span', { class: tokens[t].cls }, [text.slice(start, end)]));
      at = end;
    }
    if (at < to) out.push(text.slice(at, to));
    return out;
  };
  for (const seg of segments) {
    let offset = seg.from;
    const parts = text.slice(seg.from, seg.to).split('\n');
    parts.forEach((part, i) => {
      if (i > 0) {
        code = newLine(frag, ++lineNo);
        offset++;
      }
      const from = offset;
      offset += part.length;
      if (part === '') return;
      if (seg.sites.length === 0 && !seg.frozen) {
        code.append(...highlighted(from, offset));
        return;
      }
      const span = h('span', {}, highlighted(from, offset));
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
