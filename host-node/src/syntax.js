// When autodd's parser refuses a program, what the user's own interpreter says about
// it (python/autodd_syntax.py): a real syntax error in CPython's words, or valid code
// in a construct autodd cannot reduce yet (a PEP 696 default, a PEP 750 t-string),
// named with its line, column, PEP and what to do meanwhile.

import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { AutoddError } from './errors.js';
import { PYTHON_DIR } from './python.js';

/**
 * The engine's syntax error `err` on `source`, explained by `python`; `err` itself when
 * `python` cannot say (it does not run, or answers nothing readable). The code stays
 * the engine's: the same error, in better words.
 * @param {AutoddError} err
 * @param {string} source
 * @param {string} python
 * @returns {AutoddError}
 */
export function explainSyntaxError(err, source, python) {
  const line = err.line ?? 1;
  const column = err.column ?? 1;
  const script = path.join(PYTHON_DIR, 'autodd_syntax.py');
  const run = spawnSync(python, ['-I', script, String(line), String(column)], {
    input: source,
    encoding: 'utf8',
    timeout: 30_000,
  });
  /** @type {any} */
  let answer;
  try {
    answer = JSON.parse((run.stdout ?? '').trim().split('\n').at(-1) ?? '');
  } catch {
    return err;
  }
  const name = `${path.basename(python)} (Python ${answer.version})`;
  if (answer.accepted === false) {
    // A null byte has no position in Python's message.
    const at = answer.line == null ? '' : ` at line ${answer.line}, column ${answer.column}`;
    return new AutoddError(err.code, `syntax error${at}: ${answer.error} (${name} refuses it too)`, {
      line: answer.line ?? undefined,
      column: answer.column ?? undefined,
    });
  }
  if (answer.construct === null) {
    return new AutoddError(
      err.code,
      `${err.message}; ${name} accepts the program but autodd's parser does not: please report it`,
      { line, column },
    );
  }
  return new AutoddError(
    err.code,
    `line ${answer.line}, column ${answer.column}: ${answer.construct} (PEP ${answer.pep}, Python ${answer.since}) ` +
      `is valid for ${name}, but autodd cannot reduce it yet: ${answer.hint}`,
    { line: answer.line, column: answer.column },
  );
}
