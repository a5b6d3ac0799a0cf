// Loads the wasm engine built by scripts/build-wasm.sh (wasm-pack's `nodejs` target,
// a CommonJS module in ../pkg/) once, with a clear error when it was never built.

import { createRequire } from 'node:module';
import { AutoddError } from './errors.js';

const require = createRequire(import.meta.url);

/** @typedef {typeof import('../pkg/autodd_wasm.js')} Engine */

/** @type {Engine | undefined} */
let engine;

/** @returns {Engine} */
export function loadEngine() {
  if (!engine) {
    try {
      engine = require('../pkg/autodd_wasm.js');
    } catch (err) {
      if (/** @type {NodeJS.ErrnoException} */ (err).code === 'MODULE_NOT_FOUND') {
        throw new AutoddError(
          'wasm-missing',
          'the autodd engine is not built: run scripts/build-wasm.sh nodejs',
        );
      }
      throw err;
    }
  }
  return /** @type {Engine} */ (engine);
}

/**
 * Forgets the engine: the next `loadEngine()` makes a new instance. For after a stack
 * overflow inside the engine, which unwinds past the wasm code's own stack pointer and
 * leaves that instance unusable for new work. Reducers made before keep the old one,
 * and their schedulers come from it (see `createReducer`).
 */
export function reloadEngine() {
  delete require.cache[require.resolve('../pkg/autodd_wasm.js')];
  engine = undefined;
}
