// Picks a backend by name. Both have the same shape: `run(source, { signal })` and `close()`;
// each takes the options it knows of.

import { RunnerBackend } from './runner.js';
import { SubprocBackend } from './subproc.js';

export const BACKENDS = /** @type {const} */ (['runner', 'subproc']);

/** @typedef {(typeof BACKENDS)[number]} BackendName */
/** @typedef {RunnerBackend | SubprocBackend} Backend */

/**
 * @param {BackendName} name
 * @param {ConstructorParameters<typeof RunnerBackend>[0] &
 *   ConstructorParameters<typeof SubprocBackend>[0]} options
 * @returns {Backend}
 */
export function createBackend(name, options) {
  return name === 'subproc' ? new SubprocBackend(options) : new RunnerBackend(options);
}
