// Python highlighting: the editor's and the diffs' (CodeMirror extensions), and for the
// code views that are not editors (the site view and the normalized program) the same
// parser and highlighting tags, as ranges.

import { python, pythonLanguage } from '@codemirror/lang-python';
import { defaultHighlightStyle, syntaxHighlighting } from '@codemirror/language';
import { oneDark } from '@codemirror/theme-one-dark';
import { classHighlighter, highlightTree } from '@lezer/highlight';

/**
 * Python with the page's colours: CodeMirror's default highlighting, or its One Dark
 * theme when the system prefers dark (as the page's own colours do).
 * @returns {import('@codemirror/state').Extension}
 */
export function pythonView() {
  const dark = globalThis.matchMedia?.('(prefers-color-scheme: dark)').matches;
  return [python(), dark ? oneDark : syntaxHighlighting(defaultHighlightStyle)];
}

/**
 * @typedef {{ from: number, to: number, cls: string }} Token a highlighted range of
 *   the text, with its classes (`tok-keyword`, `tok-string`, ...)
 */

/**
 * The highlighted ranges of a Python program, in order, not overlapping.
 * @param {string} text
 * @returns {Token[]}
 */
export function pythonTokens(text) {
  /** @type {Token[]} */
  const out = [];
  highlightTree(pythonLanguage.parser.parse(text), classHighlighter, (from, to, cls) => {
    out.push({ from, to, cls });
  });
  return out;
}

/**
 * The string literals among highlighted ranges: a literal's pieces (its text and the
 * escapes in it, which carry their own class) joined into one range.
 * @param {Token[]} tokens from `pythonTokens`
 * @returns {{ from: number, to: number }[]} in order
 */
export function stringRanges(tokens) {
  /** @type {{ from: number, to: number }[]} */
  const out = [];
  for (const t of tokens) {
    if (!/\btok-string2?\b/.test(t.cls)) continue;
    const last = out.at(-1);
    if (last && last.to === t.from) last.to = t.to;
    else out.push({ from: t.from, to: t.to });
  }
  return out;
}
