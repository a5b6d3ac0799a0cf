// The autodd JS API. `reduce()` takes any predicate; `reducePython()` is what the
// `autodd` command runs. Both drive the same wasm engine through ./reduce.js.

import { AutoddError } from './errors.js';
import { unlessAborted } from './backends/runner.js';
import { checkJobs, checkOptions, checkSignal, createReducer, drive } from './reduce.js';

export { AutoddError } from './errors.js';
export { reducePython } from './reduce-python.js';

/**
 * Reduces a Python program to a smaller one that `isInteresting` still accepts.
 * See index.d.ts for the documented options.
 * @param {object} options
 * @param {string} options.source
 * @param {(candidateSource: string, signal: AbortSignal) => Promise<unknown>} options.isInteresting
 * @param {number} [options.jobs]
 * @param {string[]} [options.rewrites]
 * @param {(progress: import('./reduce.js').Progress) => void} [options.onProgress]
 * @param {AbortSignal} [options.signal]
 */
export async function reduce(options) {
  checkOptions(options, 'reduce', 'source, isInteresting');
  const { source, isInteresting, jobs, rewrites, onProgress, signal } = options;
  if (typeof source !== 'string') throw new AutoddError('usage', 'source must be a string');
  if (typeof isInteresting !== 'function') {
    throw new AutoddError('usage', 'isInteresting must be a function');
  }
  if (rewrites !== undefined && !(Array.isArray(rewrites) && rewrites.every((r) => typeof r === 'string'))) {
    throw new AutoddError('usage', 'rewrites must be an array of rewrite names');
  }
  if (onProgress !== undefined && typeof onProgress !== 'function') {
    throw new AutoddError('usage', 'onProgress must be a function');
  }
  checkSignal(signal);
  const parallel = checkJobs(jobs);
  const reducer = createReducer(source, rewrites ? { rewrites } : undefined);
  try {
    // The predicate gets a signal that aborts when its verdict is no longer wanted; one
    // that ignores it is not waited for once `signal` aborts. Any truthy answer counts.
    const original = new AbortController();
    const abort = () => original.abort(signal?.reason);
    signal?.addEventListener('abort', abort, { once: true });
    let accepts;
    try {
      // Already aborted: the original is not checked (drive() returns it at once).
      if (!signal?.aborted) {
        const verdict = Promise.resolve().then(() => isInteresting(reducer.best(), original.signal));
        accepts = await unlessAborted(verdict, signal);
      }
    } finally {
      signal?.removeEventListener('abort', abort);
    }
    // Refuse a predicate that rejects the input: the "reduction" would be meaningless.
    if (!signal?.aborted && !accepts) {
      throw new AutoddError('not-reproduced', 'isInteresting rejects the original program');
    }
    const result = await drive(reducer, {
      jobs: parallel,
      signal,
      onProgress,
      abandon: true,
      evaluate: async (candidate, stale) => Boolean(await isInteresting(candidate.source, stale)),
    });
    return { source: result.source, stats: result.stats, interrupted: result.interrupted };
  } finally {
    reducer.free();
  }
}
