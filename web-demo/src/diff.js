// A line diff by longest common subsequence: what changed between two versions of a
// program, shown as the best program with its last accepted change.

/**
 * @typedef {object} DiffLine
 * @property {'same' | 'add' | 'del'} op
 * @property {string} text
 * @property {number | null} oldLine 1-based line in the old text (null for an added line)
 * @property {number | null} newLine 1-based line in the new text (null for a deleted line)
 */

// Above this many cells the quadratic table is not worth it: the middle part is shown
// as deleted then added, which is still a correct (if not minimal) diff.
const MAX_CELLS = 4_000_000;

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
 * The lines of `newText` and the deleted lines of `oldText`, in reading order.
 * @param {string} oldText
 * @param {string} newText
 * @returns {DiffLine[]}
 */
export function diffLines(oldText, newText) {
  const a = splitLines(oldText);
  const b = splitLines(newText);

  // The common head and tail need no table, and a reduction step usually changes
  // one small region.
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (
    tail < a.length - head &&
    tail < b.length - head &&
    a[a.length - 1 - tail] === b[b.length - 1 - tail]
  ) {
    tail++;
  }

  /** @type {DiffLine[]} */
  const out = [];
  for (let i = 0; i < head; i++) out.push({ op: 'same', text: a[i], oldLine: i + 1, newLine: i + 1 });
  middle(a, b, head, a.length - tail, head, b.length - tail, out);
  for (let k = tail; k > 0; k--) {
    const i = a.length - k;
    const j = b.length - k;
    out.push({ op: 'same', text: a[i], oldLine: i + 1, newLine: j + 1 });
  }
  return out;
}

/**
 * Diffs a[a0..a1) against b[b0..b1) into `out`.
 * @param {string[]} a
 * @param {string[]} b
 * @param {number} a0
 * @param {number} a1
 * @param {number} b0
 * @param {number} b1
 * @param {DiffLine[]} out
 */
function middle(a, b, a0, a1, b0, b1, out) {
  const n = a1 - a0;
  const m = b1 - b0;
  if (n === 0 || m === 0 || n * m > MAX_CELLS) {
    for (let i = a0; i < a1; i++) out.push({ op: 'del', text: a[i], oldLine: i + 1, newLine: null });
    for (let j = b0; j < b1; j++) out.push({ op: 'add', text: b[j], oldLine: null, newLine: j + 1 });
    return;
  }
  // lcs[i * (m + 1) + j]: length of the LCS of a[a0 + i..a1) and b[b0 + j..b1).
  const width = m + 1;
  const lcs = new Uint32Array((n + 1) * width);
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      lcs[i * width + j] =
        a[a0 + i] === b[b0 + j]
          ? lcs[(i + 1) * width + j + 1] + 1
          : Math.max(lcs[(i + 1) * width + j], lcs[i * width + j + 1]);
    }
  }
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[a0 + i] === b[b0 + j]) {
      out.push({ op: 'same', text: a[a0 + i], oldLine: a0 + i + 1, newLine: b0 + j + 1 });
      i++;
      j++;
    } else if (lcs[(i + 1) * width + j] >= lcs[i * width + j + 1]) {
      // Deletions first: a replaced line reads as "-old" then "+new".
      out.push({ op: 'del', text: a[a0 + i], oldLine: a0 + i + 1, newLine: null });
      i++;
    } else {
      out.push({ op: 'add', text: b[b0 + j], oldLine: null, newLine: b0 + j + 1 });
      j++;
    }
  }
  for (; i < n; i++) out.push({ op: 'del', text: a[a0 + i], oldLine: a0 + i + 1, newLine: null });
  for (; j < m; j++) out.push({ op: 'add', text: b[b0 + j], oldLine: null, newLine: b0 + j + 1 });
}

/**
 * How many lines a diff adds and deletes.
 * @param {DiffLine[]} diff
 * @returns {{ added: number, deleted: number }}
 */
export function diffCounts(diff) {
  let added = 0;
  let deleted = 0;
  for (const line of diff) {
    if (line.op === 'add') added++;
    else if (line.op === 'del') deleted++;
  }
  return { added, deleted };
}
