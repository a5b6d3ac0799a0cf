// Positions to ranges to painted segments. The engine reports sites as 1-based line
// and column in UTF-16 code units of the normalized program, which is exactly how JS
// strings index; these helpers turn them into string offsets and cut the text into
// segments that each know which sites (and frozen regions) cover them.

/**
 * @typedef {{ line: number, column: number }} Position 1-based; column in UTF-16 units
 * @typedef {{ index: number, rewrite?: string, start: Position, end: Position }} Site
 * @typedef {{ from: number, to: number }} Range offsets in UTF-16 code units, `to` exclusive
 * @typedef {{ from: number, to: number, sites: number[], frozen: boolean }} Segment
 *   `sites` lists the indices of the sites covering the segment, outermost first
 */

/**
 * Splits a program into lines; a final newline does not make an extra empty line.
 * @param {string} text
 * @returns {string[]}
 */
export function splitLines(text) {
  if (text === '') return [];
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/**
 * Offsets at which each line starts.
 * @param {string} text
 * @returns {number[]}
 */
export function lineStarts(text) {
  const starts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) starts.push(i + 1);
  return starts;
}

/**
 * The offset of a 1-based position, clamped into the text and to the end of its line.
 * @param {number[]} starts from `lineStarts(text)`
 * @param {number} length the text's length
 * @param {Position} position
 * @returns {number}
 */
export function offsetOf(starts, length, position) {
  const line = Math.min(Math.max(position.line, 1), starts.length);
  const lineStart = starts[line - 1];
  const lineEnd = line < starts.length ? starts[line] - 1 : length;
  return Math.min(lineStart + Math.max(position.column, 1) - 1, lineEnd);
}

/**
 * The 1-based position of an offset.
 * @param {number[]} starts from `lineStarts(text)`
 * @param {number} offset
 * @returns {Position}
 */
export function positionOf(starts, offset) {
  let lo = 0;
  let hi = starts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (starts[mid] <= offset) lo = mid;
    else hi = mid - 1;
  }
  return { line: lo + 1, column: offset - starts[lo] + 1 };
}

/**
 * The offset ranges of sites in `text`, in the sites' order.
 * @param {string} text
 * @param {Site[]} sites
 * @returns {Array<Range & { index: number }>}
 */
export function siteRanges(text, sites) {
  const starts = lineStarts(text);
  return sites.map((site) => {
    const from = offsetOf(starts, text.length, site.start);
    const to = Math.max(from, offsetOf(starts, text.length, site.end));
    return { index: site.index, from, to };
  });
}

/**
 * Cuts `text` into segments at every boundary of a site or frozen range. Segments
 * cover the whole text, in order, and none is empty (except for an empty text).
 * @param {string} text
 * @param {Array<Range & { index: number }>} sites
 * @param {Range[]} [frozen]
 * @returns {Segment[]}
 */
export function segments(text, sites, frozen = []) {
  const cuts = new Set([0, text.length]);
  for (const r of [...sites, ...frozen]) {
    cuts.add(clamp(r.from, text.length));
    cuts.add(clamp(r.to, text.length));
  }
  const points = [...cuts].sort((x, y) => x - y);
  // Outermost first: a longer range that starts earlier encloses the others.
  const ordered = [...sites].sort((x, y) => x.from - y.from || y.to - x.to || x.index - y.index);
  /** @type {Segment[]} */
  const out = [];
  for (let k = 0; k + 1 < points.length; k++) {
    const from = points[k];
    const to = points[k + 1];
    out.push({
      from,
      to,
      sites: ordered.filter((r) => r.from <= from && to <= r.to).map((r) => r.index),
      frozen: frozen.some((r) => r.from <= from && to <= r.to),
    });
  }
  if (out.length === 0) out.push({ from: 0, to: 0, sites: [], frozen: false });
  return out;
}

/**
 * @param {number} n
 * @param {number} max
 */
function clamp(n, max) {
  return Math.min(Math.max(n, 0), max);
}

/**
 * Frozen code in a normalized program: `with __freeze__:` blocks, `__freeze__(…)`
 * calls and the import of `__freeze__`. The engine never proposes a change there;
 * the page shows these regions as frozen. (Freeze comments are already `with
 * __freeze__:` blocks once normalized.)
 * @param {string} text a normalized program: one statement per line, 4-space indents,
 *   but for the lines of a string literal that spans lines
 * @param {Range[]} [strings] the text's string literals, in order (the `tok-string`
 *   ranges of `pythonTokens`): what is inside one is text, not code. Without them a
 *   string is taken to end on its line.
 * @returns {Range[]} sorted, not overlapping
 */
export function frozenRanges(text, strings = []) {
  const starts = lineStarts(text);
  const lines = text.split('\n');
  const inside = (/** @type {number} */ offset) => stringAround(strings, offset) !== undefined;
  /** @type {Range[]} */
  const ranges = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (inside(starts[i])) continue;
    const lineEnd = starts[i] + line.length;
    // Styling starts at the statement, not at its indentation.
    const from = starts[i] + indentOf(line);
    if (/^\s*(?:from\s+[\w.]+\s+)?import\b.*\b__freeze__\b/.test(line)) {
      ranges.push({ from, to: lineEnd });
    } else if (/^\s*with\s+__freeze__\s*:/.test(line)) {
      const indent = indentOf(line);
      let j = i + 1;
      const inBlock = (/** @type {number} */ k) =>
        lines[k].trim() === '' || indentOf(lines[k]) > indent || inside(starts[k]);
      while (j < lines.length && inBlock(j)) j++;
      // Trailing blank lines are not part of the block.
      while (j > i + 1 && lines[j - 1].trim() === '' && !inside(starts[j - 1])) j--;
      ranges.push({ from, to: starts[j - 1] + lines[j - 1].length });
    }
  }
  for (const m of text.matchAll(/\b__freeze__\(/g)) {
    const from = m.index ?? 0;
    if (inside(from)) continue;
    ranges.push({ from, to: closingParen(text, from + m[0].length - 1, strings) });
  }
  return merge(ranges);
}

/**
 * The string literal of `strings` (in order) that holds `offset` past its first
 * character, if any.
 * @param {Range[]} strings
 * @param {number} offset
 * @returns {Range | undefined}
 */
function stringAround(strings, offset) {
  let lo = 0;
  let hi = strings.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (strings[mid].to <= offset) lo = mid + 1;
    else hi = mid;
  }
  const s = strings[lo];
  return s && s.from < offset && offset < s.to ? s : undefined;
}

/** @param {string} line */
function indentOf(line) {
  return line.length - line.trimStart().length;
}

/**
 * The offset just past the parenthesis that closes the one at `open`, skipping string
 * literals (those of `strings`, else to the end of their line); the end of the line
 * when it is unbalanced there.
 * @param {string} text
 * @param {number} open
 * @param {Range[]} strings
 * @returns {number}
 */
function closingParen(text, open, strings) {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text[i];
    const literal = stringAround(strings, i + 1);
    if (literal && literal.from === i) {
      i = literal.to - 1;
    } else if (c === '"' || c === "'") {
      i = stringEnd(text, i);
    } else if (c === '(' || c === '[' || c === '{') {
      depth++;
    } else if (c === ')' || c === ']' || c === '}') {
      depth--;
      if (depth === 0) return i + 1;
    } else if (c === '\n') {
      return i;
    }
  }
  return text.length;
}

/**
 * The offset of the quote closing the one-line string literal that opens at `quote`.
 * @param {string} text
 * @param {number} quote
 */
function stringEnd(text, quote) {
  const q = text[quote];
  for (let i = quote + 1; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === q || text[i] === '\n') return i;
  }
  return text.length;
}

/**
 * @param {Range[]} ranges
 * @returns {Range[]}
 */
function merge(ranges) {
  const sorted = [...ranges].sort((x, y) => x.from - y.from);
  /** @type {Range[]} */
  const out = [];
  for (const r of sorted) {
    const last = out[out.length - 1];
    if (last && r.from <= last.to) last.to = Math.max(last.to, r.to);
    else out.push({ ...r });
  }
  return out;
}
