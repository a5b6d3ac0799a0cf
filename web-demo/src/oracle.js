// The mocked oracle. A browser cannot run CPython, so "the program still fails the
// same way" is played by a JavaScript predicate over the program text. The user edits
// the body of `function (source) { … }`; it is compiled with `new Function`, in the
// page to check it and in the worker to run the reduction.

/** @typedef {(source: string) => boolean} Predicate */

/** A predicate that does not compile or throws. */
export class OracleError extends Error {
  /**
   * @param {string} message
   * @param {unknown} [cause]
   */
  constructor(message, cause) {
    super(message, { cause });
    this.name = 'OracleError';
  }
}

/**
 * Compiles the body of `function (source) { … }`. The result is true when the body
 * returns a truthy value; a body that throws makes the call throw an `OracleError`.
 * @param {string} body
 * @returns {Predicate}
 */
export function compilePredicate(body) {
  if (typeof body !== 'string' || body.trim() === '') {
    throw new OracleError('the predicate is empty: write a function body that returns true or false');
  }
  /** @type {Function} */
  let fn;
  try {
    // The user's own code, run on the user's own page: this is the point of the box.
    fn = new Function('source', `'use strict';\n${body}\n`);
  } catch (e) {
    throw new OracleError(`the predicate does not compile: ${errorMessage(e)}`, e);
  }
  return (source) => {
    try {
      return Boolean(fn(source));
    } catch (e) {
      throw new OracleError(`the predicate threw: ${errorMessage(e)}`, e);
    }
  };
}

/**
 * The body of the simple oracle: "the source still contains this text".
 * @param {string} text
 * @returns {string}
 */
export function containsTextBody(text) {
  return `// Simple mode: the program "still fails" while it contains this text.\nreturn source.includes(${JSON.stringify(text)});`;
}

/**
 * The text a simple-mode body looks for, or null when `body` is not one.
 * @param {string} body
 * @returns {string | null}
 */
export function containsTextOf(body) {
  const m = /^\/\/ Simple mode:[^\n]*\nreturn source\.includes\(("(?:[^"\\]|\\.)*")\);$/.exec(body);
  if (!m) return null;
  try {
    return JSON.parse(m[1]);
  } catch {
    return null;
  }
}

/**
 * @param {unknown} e
 * @returns {string}
 */
function errorMessage(e) {
  return e instanceof Error ? e.message : String(e);
}
