// A read-only diff of two programs: CodeMirror's unified merge view, the new program
// with the deleted lines shown in place, both highlighted as Python. CodeMirror draws
// only the lines in view, so a program of thousands of lines costs no more than a page.

import { getChunks, unifiedMergeView } from '@codemirror/merge';
import { EditorState } from '@codemirror/state';
import { EditorView, lineNumbers } from '@codemirror/view';

import { pythonView } from './syntax.js';

/**
 * @typedef {object} DiffView
 * @property {(before: string, after: string) => void} show the change from `before`
 *   to `after`, scrolled to its first changed line
 * @property {() => void} clear
 * @property {(text: string, className: string) => void} note shows a paragraph instead
 */

/**
 * Creates a diff view in `host`; `host.value` is the program it shows (the new side),
 * as a form field's would be: the page's tests read it.
 * @param {HTMLElement} host
 * @param {string} label what the view shows, for screen readers
 * @returns {DiffView}
 */
export function createDiffView(host, label) {
  const common = [
    lineNumbers(),
    pythonView(),
    EditorState.readOnly.of(true),
    EditorView.contentAttributes.of({ 'aria-label': label, 'aria-readonly': 'true' }),
  ];
  /** @type {EditorView | null} */
  let view = null;

  Object.defineProperty(host, 'value', { get: () => view?.state.doc.toString() ?? '' });

  return {
    show(before, after) {
      const state = EditorState.create({
        doc: after,
        extensions: [...common, unifiedMergeView({ original: before, mergeControls: false })],
      });
      if (view === null) {
        host.replaceChildren(); // a note shown before
        view = new EditorView({ state, parent: host });
      } else {
        view.setState(state);
      }
      const first = getChunks(view.state)?.chunks[0];
      if (first) view.dispatch({ effects: EditorView.scrollIntoView(first.fromB, { y: 'center' }) });
    },
    clear() {
      view?.destroy();
      view = null;
      host.replaceChildren();
    },
    note(text, className) {
      this.clear();
      const p = document.createElement('p');
      p.className = className;
      p.textContent = text;
      host.append(p);
    },
  };
}
