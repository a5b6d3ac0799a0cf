// The program editor: CodeMirror 6 with Python highlighting, line numbers, undo, and
// the engine's syntax error marked at its line and column.

import { defaultKeymap, history, historyKeymap, indentWithTab } from '@codemirror/commands';
import { bracketMatching, indentOnInput, indentUnit } from '@codemirror/language';
import { lintGutter, setDiagnostics } from '@codemirror/lint';
import { EditorState } from '@codemirror/state';
import { drawSelection, EditorView, highlightActiveLine, keymap, lineNumbers } from '@codemirror/view';

import { pythonView } from './syntax.js';

/**
 * @typedef {object} Editor
 * @property {() => string} text
 * @property {(text: string) => void} setText replaces the program (not an edit: no
 *   `onInput`, and undo starts over)
 * @property {(error: { line: number, column: number, message: string } | null) => void} markError
 * @property {(line: number, column: number) => void} goTo puts the caret at a 1-based UTF-16 position
 * @property {() => void} focus
 */

/**
 * Creates the editor in `host`. Like a form field, `host.value` reads the program and
 * setting it replaces the program as an edit would (with `onInput`), and
 * `host.selectionStart` is the caret's offset: the page's tests and scripts use them.
 * @param {HTMLElement} host
 * @param {() => void} onInput called after each edit
 * @returns {Editor}
 */
export function createEditor(host, onInput) {
  // Tab indents; Escape then Tab leaves the editor, so keyboard users are never trapped
  // (CodeMirror's own rule for `indentWithTab`).
  const extensions = [
    lineNumbers(),
    lintGutter(),
    history(),
    drawSelection(),
    highlightActiveLine(),
    bracketMatching(),
    indentOnInput(),
    indentUnit.of('    '),
    EditorState.tabSize.of(4),
    pythonView(),
    keymap.of([...defaultKeymap, ...historyKeymap, indentWithTab]),
    EditorView.contentAttributes.of({
      'aria-label': 'Python program (paste your own)',
      'aria-describedby': 'program-status',
      spellcheck: 'false',
      autocapitalize: 'off',
      autocorrect: 'off',
    }),
    EditorView.updateListener.of((update) => {
      if (update.docChanged) onInput();
    }),
  ];
  /** @param {string} doc */
  const stateOf = (doc) => EditorState.create({ doc, extensions });
  const view = new EditorView({ state: stateOf(''), parent: host });

  Object.defineProperties(host, {
    value: {
      get: () => view.state.doc.toString(),
      /** @param {string} text */
      set: (text) =>
        view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text }, userEvent: 'input' }),
    },
    selectionStart: { get: () => view.state.selection.main.head },
  });

  /**
   * The offset of a 1-based line and UTF-16 column, clamped into the document.
   * @param {number} line
   * @param {number} column
   */
  function offsetOf(line, column) {
    const doc = view.state.doc;
    const at = doc.line(Math.min(Math.max(line, 1), doc.lines));
    return Math.min(at.from + Math.max(column - 1, 0), at.to);
  }

  return {
    text: () => view.state.doc.toString(),
    setText(text) {
      view.setState(stateOf(text));
    },
    markError(error) {
      if (error === null) {
        view.dispatch(setDiagnostics(view.state, []));
        return;
      }
      const from = offsetOf(error.line, error.column);
      const to = Math.min(from + 1, view.state.doc.lineAt(from).to);
      view.dispatch(setDiagnostics(view.state, [{ from, to, severity: 'error', message: error.message }]));
    },
    goTo(line, column) {
      const at = offsetOf(line, column);
      view.dispatch({ selection: { anchor: at }, effects: EditorView.scrollIntoView(at, { y: 'center' }) });
      view.focus();
    },
    focus: () => view.focus(),
  };
}
