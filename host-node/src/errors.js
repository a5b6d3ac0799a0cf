// Errors that are the user's to fix carry a stable `code`; the CLI prints their
// message on one line and exits 2 (1 for `not-reproduced`), never with a stack trace.

/** @typedef {import('../index.js').ErrorCode} ErrorCode (the list is in index.d.ts) */

export class AutoddError extends Error {
  /**
   * @param {ErrorCode} code
   * @param {string} message
   * @param {{ line?: number, column?: number, details?: string }} [extra]
   */
  constructor(code, message, extra = {}) {
    super(message);
    this.name = 'AutoddError';
    /** @type {ErrorCode} */
    this.code = code;
    /** 1-based line of a syntax error. */
    this.line = extra.line;
    /** 1-based column of a syntax error, in UTF-16 code units. */
    this.column = extra.column;
    /** More lines for people, e.g. the tail of a run's output. */
    this.details = extra.details;
  }
}

/**
 * An error thrown by the wasm engine (a JS `Error` with a string `code`) as an AutoddError.
 * Anything else (a bug) is returned unchanged.
 * @param {unknown} err
 * @returns {unknown}
 */
export function fromEngine(err) {
  if (err instanceof Error && typeof (/** @type {any} */ (err).code) === 'string') {
    const e = /** @type {Error & { code: any, line?: number, column?: number }} */ (err);
    if (e.code !== 'internal') {
      return new AutoddError(e.code, e.message, { line: e.line, column: e.column });
    }
  }
  return err;
}
