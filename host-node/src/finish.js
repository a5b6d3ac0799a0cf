// The end of a reduction: make the result run on its own (without freeze markers when
// it still reproduces without them), write it, and confirm it in fresh processes as the
// user would run it. Every run and write comes in as a function, so these policies are
// tested without Python (test/policies.test.js).

/** @typedef {import('./backends/result.js').RunResult} RunResult */

/**
 * @typedef {object} FinishTools
 * @property {(run: RunResult) => boolean} reproduces the reduction's verdict on a run
 * @property {(text: string) => string} stripFreeze `text` without freeze markers
 * @property {(text: string) => Promise<void>} write replaces OUTPUT
 * @property {(text: string, ms: number, signal?: AbortSignal, job?: number, more?: boolean) => Promise<RunResult>} freshRun
 *   one run in a fresh `python3`, as the user runs OUTPUT (on job `job`'s device and
 *   files, job 0 by default); `more`: another run of that job follows
 * @property {boolean} keepFreeze leave the markers in
 */

/**
 * An interrupted reduction keeps the smaller of the engine's best and what OUTPUT
 * holds, without freeze markers if one quick fresh run shows it reproduces so.
 * @param {FinishTools} tools
 * @param {{ best: string, written: string, quickMs: number }} state
 * @returns {Promise<{ final: string, stripped: boolean }>}
 */
export async function finishInterrupted(tools, { best, written, quickMs }) {
  // OUTPUT holds the smallest program accepted so far; the engine's current one may be
  // larger (mid-way through a canonicalizing phase).
  let final = Buffer.byteLength(best) <= Buffer.byteLength(written) ? best : written;
  // OUTPUT must run on its own even now: the `__freeze__` markers (and the import
  // autodd may have added for them) need autodd's shim.
  let stripped = false;
  const bare = tools.keepFreeze ? final : tools.stripFreeze(final);
  if (bare !== final && tools.reproduces(await tools.freshRun(bare, quickMs))) {
    final = bare;
    stripped = true;
  }
  await tools.write(final);
  return { final, stripped };
}

/**
 * A finished reduction: writes the engine's result, drops its freeze markers if it
 * reproduces without them (a candidate run like the others), then runs it in a fresh
 * process as often as the original was checked, so a flaky result shows as such;
 * `together` of those runs go at once (as the original's checks did with several
 * jobs), each as job 0, 1, …
 * @param {FinishTools & {
 *   attempt: (text: string, signal?: AbortSignal) => Promise<RunResult>,
 *   warn: (message: string) => void,
 *   closeBackend: () => Promise<void>,
 * }} tools
 * @param {{
 *   result: string, checkRuns: number, timeoutMs: number, together?: number, signal?: AbortSignal,
 * }} state
 * @returns {Promise<{ final: string, stripped: boolean, confirms: RunResult[] }>}
 */
export async function finishReduction(tools, { result, checkRuns, timeoutMs, together = 1, signal }) {
  let final = result;
  // The engine's result is the smallest interesting program it saw.
  await tools.write(final);
  let stripped = false;
  if (!tools.keepFreeze) {
    const bare = tools.stripFreeze(final);
    if (bare !== final) {
      if (tools.reproduces(await tools.attempt(bare, signal))) {
        final = bare;
        stripped = true;
        await tools.write(final);
      } else if (!signal?.aborted) {
        tools.warn('the result does not reproduce without its freeze markers; they are kept');
      }
    }
  }
  // The final word: a fresh process, as `python3 OUTPUT` would run it. The workers are
  // done: they exit meanwhile.
  const closing = tools.closeBackend();
  /** @type {RunResult[]} */
  const confirms = [];
  while (confirms.length < checkRuns && !signal?.aborted) {
    const count = Math.max(1, Math.min(together, checkRuns - confirms.length));
    const more = confirms.length + count < checkRuns;
    const runs = Array.from({ length: count }, (_, job) =>
      tools.freshRun(final, timeoutMs, signal, job, more),
    );
    // Every run is over before anything goes on (or fails): none outlives the workspace.
    for (const settled of await Promise.allSettled(runs)) {
      if (settled.status === 'rejected') throw settled.reason;
      confirms.push(settled.value);
    }
  }
  await closing;
  return { final, stripped, confirms };
}
