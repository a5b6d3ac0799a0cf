// The autodd JS API. `reduce()` takes any predicate; `reducePython()` is what the
// `autodd` command runs. Both drive the same wasm engine through ./reduce.js.

import { AutoddError } from './errors.js';
import { checkJobs, createReducer, drive } from './reduce.js';

export { AutoddError } from './errors.js';
export { reducePython } from './reduce-python.js';

/**
 * Reduces a Python program to a smaller one that `isInteresting` still accepts.
 * See index.d.ts for the documented options.
 * @param {object} options
 * @param {string} options.source
 * @param {(candidateSource: string) => Promise<boolean>} options.isInteresting
 * @param {number} [options.jobs]
 * @param {string[]} [options.rewrites]
 * @param {(progress: import('./reduce.js').Progress) => void} [options.onProgress]
 * @param {AbortSignal} [options.signal]
 */
export async function reduce({ source, isInteresting, jobs, rewrites, onProgress, signal }) {
  if (typeof source !== 'string') throw new AutoddError('usage', 'source must be a string');
  if (typeof isInteresting !== 'function') {
    throw new AutoddError('usage', 'isInteresting must be a function');
  }
  const parallel = checkJobs(jobs);
  const reducer = createReducer(source, rewrites ? { rewrites } : undefined);
  try {
    // Refuse a predicate that rejects the input: the "reduction" would be meaningless.
    if (!(await isInteresting(reducer.best()))) {
      throw new AutoddError('not-reproduced', 'isInteresting rejects the original program');
    }
    const result = await drive(reducer, {
      jobs: parallel,
      signal,
      onProgress,
      evaluate: (candidate) => isInteresting(candidate.source),
    });
    return { source: result.source, stats: result.stats, interrupted: result.interrupted };
  } finally {
    reducer.free();
  }
}
