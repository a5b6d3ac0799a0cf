// The program editor: a plain textarea with a line-number gutter that follows its
// scrolling, and a mark on the line of a syntax error.

/**
 * @typedef {object} Editor
 * @property {() => string} text
 * @property {(text: string) => void} setText replaces the program (no input event)
 * @property {(line: number | null) => void} markError
 * @property {(line: number, column: number) => void} goTo puts the caret at a 1-based UTF-16 position
 */

/**
 * @param {HTMLTextAreaElement} textarea
 * @param {HTMLElement} gutter
 * @param {() => void} onInput called after each edit
 * @returns {Editor}
 */
export function createEditor(textarea, gutter, onInput) {
  let lineCount = -1;
  /** @type {number | null} */
  let errorLine = null;

  function renderGutter() {
    const n = Math.max(1, textarea.value.split('\n').length);
    if (n === lineCount && gutter.dataset.error === String(errorLine)) return;
    lineCount = n;
    gutter.dataset.error = String(errorLine);
    const frag = document.createDocumentFragment();
    for (let i = 1; i <= n; i++) {
      const span = document.createElement('span');
      span.textContent = `${i}\n`;
      if (i === errorLine) span.className = 'error';
      frag.append(span);
    }
    gutter.replaceChildren(frag);
    gutter.scrollTop = textarea.scrollTop;
  }

  textarea.addEventListener('input', () => {
    renderGutter();
    onInput();
  });
  textarea.addEventListener('scroll', () => {
    gutter.scrollTop = textarea.scrollTop;
  });
  // Tab indents (four spaces, as Python wants) instead of leaving the editor;
  // Escape first, then Tab, leaves it, so keyboard users are never trapped.
  let escaped = false;
  textarea.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') {
      escaped = true;
      return;
    }
    if (e.key === 'Tab' && !e.shiftKey && !escaped && !e.ctrlKey && !e.metaKey && !e.altKey) {
      e.preventDefault();
      textarea.setRangeText('    ', textarea.selectionStart, textarea.selectionEnd, 'end');
      textarea.dispatchEvent(new Event('input'));
    }
    escaped = false;
  });

  return {
    text: () => textarea.value,
    setText(text) {
      textarea.value = text;
      textarea.scrollTop = 0;
      renderGutter();
    },
    markError(line) {
      errorLine = line;
      renderGutter();
    },
    goTo(line, column) {
      const lines = textarea.value.split('\n');
      let offset = 0;
      for (let i = 0; i < Math.min(line - 1, lines.length); i++) offset += lines[i].length + 1;
      offset += Math.max(column - 1, 0);
      textarea.focus();
      textarea.setSelectionRange(offset, offset);
      // Bring the line into view: the textarea scrolls by its line height.
      const lineHeight = parseFloat(getComputedStyle(textarea).lineHeight) || 20;
      textarea.scrollTop = Math.max(0, (line - 3) * lineHeight);
    },
  };
}
