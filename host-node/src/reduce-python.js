// `reducePython()`: what the CLI calls. Checks that the program reproduces, drives
// the engine with a Python backend deciding "interesting" (MSG in stdout or stderr),
// keeps OUTPUT up to date, then strips the freeze markers and confirms the result
// in a fresh `python3` process.

import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BACKENDS, createBackend } from './backends/index.js';
import { SubprocBackend } from './backends/subproc.js';
import { loadEngine } from './engine.js';
import { AutoddError, fromEngine } from './errors.js';
import { checkOutput, OutputWriter, readSource } from './files.js';
import { Workspace } from './python.js';
import { checkJobs, createReducer, drive } from './reduce.js';
import { failureInfo, likelyCauses, notReproduced, Oracle, ran } from './verdict.js';

/** Candidates may run this many times longer than the original did... */
const ADAPTIVE_FACTOR = 10;
/**
 * ...plus this margin, for noise (a busy machine, a slow fork). On the benchmark's 15
 * cases no candidate that reproduced took over 3.4 times as long as the original, so
 * for programs that run in milliseconds the margin is most of the cap: at 0.1 s it
 * made each hang cost 15 to 30 times the original's run.
 */
const ADAPTIVE_MARGIN_MS = 20;
/**
 * Once this many candidates reproduced, the limit follows their run times
 * (`learnTimeout`): a hang is judged against what reproducing takes in this reduction,
 * not only against the original's run...
 */
const LEARN_AFTER = 8;
/** ...at this many times the slowest of them... */
const LEARNED_FACTOR = 3;
/**
 * ...but never under this multiple of the original's run (both plus the margin, and
 * never above the limit the original set). On the benchmark the slowest reproducing
 * candidate took 1.3 to 3.4 times the original's run, so the floor decides for most
 * programs, and a hang costs about half of what it did under the original's limit.
 */
const LEARNED_FLOOR = 4;
/**
 * What starting a fresh interpreter (its site imports included) may add to a run that
 * the candidates' limit was set for, in the one fresh run an interrupted reduction makes.
 */
const FRESH_START_MS = 500;
/** A candidate is probed for being stuck from this multiple of the original's time on… */
const STUCK_FACTOR = 2;
/** …plus this. */
const STUCK_MARGIN_MS = 20;
/**
 * By default the jobs' candidates may allocate half the machine's memory between
 * them (each beyond what its worker holds)…
 */
const MEMORY_SHARE = 0.5;
/** …but each at least this much. */
const MEMORY_FLOOR_MIB = 2048;
/** A failure about memory: a candidate stopped by the limit could fake it. */
const MEMORY_FAILURE = /MemoryError|out of memory|cannot allocate memory/i;
const MIB = 1024 * 1024;

/** @typedef {import('./reduce.js').Progress} Progress */
/** @typedef {import('./reduce.js').AcceptedStep} AcceptedStep */
/** @typedef {import('./backends/result.js').RunResult} RunResult */

/**
 * The API's types are declared once, in index.d.ts (with their documentation).
 * @typedef {import('../index.js').RunRecord} RunRecord
 * @typedef {import('../index.js').FailureInfo} FailureInfo
 * @typedef {NonNullable<import('../index.js').ReducePythonResult['finalCheck']>} FinalCheck
 * @typedef {import('../index.js').ReducePythonOptions} PythonReduceOptions
 * @typedef {import('../index.js').ReducePythonResult} PythonReduceResult
 */

/**
 * Reduces a Python program to the smallest one whose output still contains `errMsg`.
 * @param {PythonReduceOptions} options
 * @returns {Promise<PythonReduceResult>}
 */
export async function reducePython(options) {
  const t0 = performance.now();
  const { output, signal, onProgress, onPhase } = options;
  const { errMsg, backendName, timeout, jobs, retries, sameError, memoryLimit, prefork, source } =
    settingsOf(options);
  const oracle = new Oracle({ errMsg, matchQuoted: options.matchQuotedSource === true, sameError });
  const reproduces = (/** @type {RunResult} */ run) => oracle.reproduces(run);

  /** @type {string[]} */
  const warnings = [];
  const warn = (/** @type {string} */ message) => {
    warnings.push(message);
    options.onWarning?.(message);
  };

  const timings = {
    checkMs: 0,
    reduceMs: 0,
    engineMs: 0,
    engineOutsideRunsMs: 0,
    runMs: 0,
    finishMs: 0,
    totalMs: 0,
  };
  /** How the candidates' runs ended (cancelled ones are not counted). */
  const outcomes = { exited: 0, signaled: 0, timeout: 0, stuck: 0, crashed: 0 };
  let compiledAhead = 0;
  let retried = 0;
  /** @type {FinalCheck | null} */
  let finalCheck = null;
  let workspaceIsolated = false;
  /** @type {{ original: FailureInfo | null, result: FailureInfo | null }} */
  const failure = { original: null, result: null };
  // Python is probed (a process start, tens of milliseconds) while the engine loads
  // and parses the program.
  const workspaceReady = Workspace.create({
    python: options.python ?? 'python3',
    jobs,
    cwd: options.cwd,
    sourcePath: options.file,
    outputPath: output,
    stdin: options.stdin,
    env: options.env,
    sandbox: options.sandbox !== false,
  });
  /** @type {ReturnType<typeof loadEngine>} */
  let engine;
  /** @type {ReturnType<typeof createReducer>} */
  let reducer;
  try {
    engine = loadEngine();
    reducer = createReducer(source, options.engine);
  } catch (err) {
    workspaceReady.then(
      (workspace) => workspace.close(),
      () => {},
    );
    throw err;
  }
  let candidateTimeoutMs = 0;
  let firstCandidateTimeoutMs = 0;
  /** @type {(() => (number[] | null | undefined)[]) | undefined} the runner's CPU shares */
  let cpuShares;
  /** @type {(() => number | null | undefined) | undefined} the runner's data limit */
  let dataLimit;
  /**
   * @param {string} text
   * @param {{ interrupted: boolean, checked?: boolean, reproduced?: boolean | null, stripped?: boolean }} how
   * @param {import('./reduce.js').DriveResult} [driven]
   * @returns {PythonReduceResult}
   */
  const finished = (text, { interrupted, checked = true, reproduced = null, stripped = false }, driven) => {
    timings.totalMs = performance.now() - t0;
    return {
      source: text,
      stats: driven?.stats ?? reducer.stats(),
      tried: driven?.tried ?? 0,
      steps: driven?.steps ?? [],
      interrupted,
      checked,
      reproduced,
      freezeStripped: stripped,
      failure,
      finalCheck,
      isolated: workspaceIsolated,
      matchQuotedSource: oracle.matchQuoted,
      retries: retried,
      timings,
      warnings,
      candidateTimeoutMs,
      firstCandidateTimeoutMs,
      outcomes,
      compiledAhead,
      ...(cpuShares ? { cpus: cpuShares().map((share) => share ?? null) } : {}),
      memoryLimitMib: memoryLimit !== undefined && dataLimit?.() ? memoryLimit / MIB : null,
      prefork,
    };
  };
  try {
    for (const message of reducer.warnings()) warn(message);
    const workspace = await workspaceReady;
    workspaceIsolated = workspace.isolated;
    try {
      const timeoutMs = timeout * 1000;
      candidateTimeoutMs = timeoutMs;
      firstCandidateTimeoutMs = timeoutMs;
      const backend = createBackend(backendName, {
        workspace,
        needle: errMsg,
        timeoutMs,
        jobs,
        preload: options.preload === false ? [] : engineCall(() => engine.topLevelImports(source)),
        cpuAffinity: options.cpuAffinity !== false,
        memoryLimit,
        prefork,
        onWarning: warn,
      });
      if ('cpuShares' in backend) cpuShares = () => backend.cpuShares();
      if ('dataLimit' in backend) dataLimit = () => backend.dataLimit();
      if (options.sandbox === false) {
        warn('--no-sandbox: candidates run unisolated, and can change or delete your files');
      } else if (workspace.copies) {
        warn(
          `candidates cannot be isolated here (${workspace.sandboxProblem}): each job runs in a copy of ` +
            `${workspace.programDir}, and files elsewhere are not protected`,
        );
      } else if (!workspace.isolated) {
        warn(
          `candidates cannot be isolated here (${workspace.sandboxProblem}): they run unisolated, ` +
            'and can change or delete your files',
        );
      } else if (workspace.refused.length > 0) {
        warn(
          `runs see ${workspace.refused.join(', ')} read-only: a mount inside cannot be overlaid, ` +
            'so a program that writes there fails as it would on a read-only disk',
        );
      }
      // Where the user runs the result: OUTPUT (or the program itself).
      const target = output ? path.resolve(output) : workspace.runAs;
      /**
       * Runs `text` once in a fresh `python3`, as a user running OUTPUT would: from
       * OUTPUT's path and the working directory, with the user's environment (no fixed
       * hash seed, no shims unless freeze markers are left), inside the same
       * isolation as the candidates.
       * @param {string} text
       * @param {number} ms time limit
       * @param {AbortSignal} [runSignal]
       */
      const freshRun = async (text, ms, runSignal) => {
        const shim = text.includes('__freeze__');
        const direct =
          !workspace.isolated &&
          target !== null &&
          fs.existsSync(target) &&
          fs.readFileSync(target, 'utf8') === text;
        finalCheck = {
          command: [
            // A result that keeps freeze markers imports autodd: say how to run it.
            ...(shim ? [`PYTHONPATH=${workspace.freezeEnv.PYTHONPATH}`] : []),
            workspace.python,
            direct || workspace.isolated ? (target ?? workspace.file(0)) : workspace.file(0),
            ...(workspace.stdin ? ['<', workspace.stdin] : []),
          ],
          cwd: workspace.cwd,
          isolated: workspace.isolated,
          freezeShim: shim,
        };
        const fresh = new SubprocBackend({
          workspace,
          needle: errMsg,
          timeoutMs: ms,
          jobs: 1,
          env: shim ? workspace.freezeEnv : workspace.userEnv,
          sandbox: () => workspace.sandbox('final', target ?? undefined),
          program: direct ? /** @type {string} */ (target) : undefined,
        });
        try {
          return await fresh.run(text, { signal: runSignal });
        } finally {
          await fresh.close();
        }
      };
      /**
       * Runs a candidate until a run reproduces, up to `retries` runs in all (a run
       * that hung or was cancelled is not repeated), counting every run.
       * @param {string} text
       * @param {AbortSignal} [runSignal]
       * @returns {Promise<{ run: RunResult, runs: number }>}
       */
      const attempt = async (text, runSignal) => {
        let runs = 0;
        /** @type {RunResult} */
        let run;
        do {
          run = await backend.run(text, { signal: runSignal });
          runs += 1;
          if (run.outcome !== 'cancelled') {
            outcomes[run.outcome] += 1;
            if (run.compiledAhead) compiledAhead += 1;
            timings.runMs += run.ms;
          }
        } while (runs < retries && ran(run) && !reproduces(run) && !runSignal?.aborted);
        retried += runs - 1;
        return { run, runs };
      };
      try {
        onPhase?.('check');
        // A candidate that hangs (a loop lost its exit) would cost the whole timeout:
        // cap candidates at a multiple of the original's run time. One run may be slow
        // (a worker's first fork, cold caches, a busy machine), so the original runs
        // twice and the faster run sets the cap.
        // A candidate left waiting for an event nothing will send (an asyncio loop
        // with nothing scheduled, a queue nobody fills) is killed as soon as that is
        // clear, once it has run a little longer than the original did.
        const adaptive = options.adaptiveTimeout !== false;
        const stuckCheck = options.stuckDetection !== false && 'detectStuck' in backend;
        const timed = adaptive || stuckCheck;
        /** @type {((foundMs: number) => number | undefined) | undefined} see limitLearner */
        let learn;
        const original = reducer.best();
        const checks = await runOriginal(backend, original, { jobs, retries, signal });
        if (signal?.aborted) return finished(original, { interrupted: true, checked: false });
        const judged = oracle.judgeOriginal(checks, retries, warn);
        if (!judged) {
          const last = checks[checks.length - 1];
          const hints = likelyCauses(last, source, {
            stdin: Boolean(workspace.stdin),
            preloaded: backendName === 'runner' && options.preload !== false,
            isolated: workspace.isolated,
          });
          throw notReproduced(
            errMsg,
            checks,
            timeout,
            workspace.env.PYTHONHASHSEED,
            memoryLimit,
            retries,
            hints,
          );
        }
        const { good } = judged;
        failure.original = judged.info;
        if (good[0].exception) {
          // class-to-base would rename the exception the original raises: a result
          // that raises its base instead fails another way.
          const kept = /** @type {string} */ (good[0].exception.split('.').pop());
          reducer.free();
          reducer = createReducer(source, { ...options.engine, keepClasses: [kept] });
        }
        if (timed) {
          const originalMs = Math.min(...good.map((r) => r.ms));
          if (adaptive) {
            candidateTimeoutMs = Math.min(timeoutMs, ADAPTIVE_FACTOR * originalMs + ADAPTIVE_MARGIN_MS);
            firstCandidateTimeoutMs = candidateTimeoutMs;
            backend.limitTimeout(candidateTimeoutMs);
            if (options.learnTimeout !== false) learn = limitLearner(originalMs, candidateTimeoutMs);
          }
          if (stuckCheck) backend.detectStuck(STUCK_FACTOR * originalMs + STUCK_MARGIN_MS);
        }
        const t1 = performance.now();
        timings.checkMs = t1 - t0;
        const writer = new OutputWriter(output);
        await writer.start(original);

        onPhase?.('reduce');
        const result = await drive(reducer, {
          jobs,
          lookahead: options.lookahead !== false,
          speculate: options.speculate !== false,
          // Compiled ahead by the process forked for it (runner, forking ahead, one job).
          prepare: 'prepare' in backend ? (candidate) => backend.prepare(candidate.source) : undefined,
          signal,
          onProgress,
          evaluate: async (candidate, candidateSignal) => {
            const { run, runs } = await attempt(candidate.source, candidateSignal);
            const found = reproduces(run);
            const limit = found ? learn?.(run.ms) : undefined;
            if (limit !== undefined && limit !== candidateTimeoutMs) {
              candidateTimeoutMs = limit;
              backend.limitTimeout(limit);
            }
            if (run.outcome !== 'cancelled') {
              options.onRun?.({
                id: candidate.id,
                phase: candidate.phase,
                rewrites: candidate.rewrites,
                sites: candidate.sites,
                bytes: Buffer.byteLength(candidate.source),
                found,
                outcome: run.outcome,
                ms: Math.round(run.ms * 10) / 10,
                runs,
              });
            }
            // A hang costs the whole time limit: the engine avoids its rewrite later.
            return found || (run.outcome === 'timeout' || run.outcome === 'stuck' ? 'hung' : false);
          },
          onAccept: output ? (best) => writer.keep(best) : undefined,
        }).finally(() => writer.idle()); // never rejects: a failed write is kept
        await writer.settle();
        const t2 = performance.now();
        timings.reduceMs = t2 - t1;
        timings.engineMs = result.engineMs;
        timings.engineOutsideRunsMs = result.engineOutsideRunsMs;
        if (result.interrupted || signal?.aborted) {
          // OUTPUT holds the smallest program accepted so far; the engine's current
          // one may be larger (mid-way through a canonicalizing phase).
          let final =
            Buffer.byteLength(result.source) <= Buffer.byteLength(writer.written)
              ? result.source
              : writer.written;
          // OUTPUT must run on its own even now: the `__freeze__` markers (and the
          // import autodd may have added for them) need autodd's shim, so drop them
          // if one quick fresh run shows the result still reproduces without them.
          let stripped = false;
          const bare = options.keepFreeze ? final : engineCall(() => engine.stripFreeze(final));
          const quick = Math.min(timeoutMs, candidateTimeoutMs + FRESH_START_MS);
          if (bare !== final && reproduces(await freshRun(bare, quick))) {
            final = bare;
            stripped = true;
          }
          await writer.write(final);
          return finished(final, { interrupted: true, stripped }, result);
        }

        onPhase?.('finish');
        let final = result.source;
        // The engine's result is the smallest interesting program it saw.
        await writer.write(final);
        let freezeStripped = false;
        if (!options.keepFreeze) {
          const stripped = engineCall(() => engine.stripFreeze(final));
          if (stripped !== final) {
            if (reproduces((await attempt(stripped, signal)).run)) {
              final = stripped;
              freezeStripped = true;
              await writer.write(final);
            } else if (!signal?.aborted) {
              warn('the result does not reproduce without its freeze markers; they are kept');
            }
          }
        }
        // The final word: a fresh process, as `python3 OUTPUT` would run it. The
        // workers are done: they exit meanwhile.
        const closing = backend.close();
        /** @type {RunResult[]} */
        const confirms = [];
        // As many runs as checked the original, so a flaky result shows as such.
        const checkRuns = failure.original?.runs ?? 1;
        while (confirms.length < checkRuns && !signal?.aborted) {
          confirms.push(await freshRun(final, timeoutMs, signal));
        }
        await closing;
        timings.finishMs = performance.now() - t2;
        const interrupted = Boolean(signal?.aborted);
        const confirmed = confirms.filter(reproduces);
        const reproduced = interrupted ? null : confirmed.length > 0;
        if (!interrupted) {
          const shown = confirmed[0] ?? confirms[0];
          failure.result = failureInfo(shown, oracle.matchQuoted, confirms.length, confirmed.length);
          if (failure.original && failure.result.kind !== failure.original.kind) {
            warn(
              `the result fails with ${failure.result.kind}, the original with ${failure.original.kind}` +
                (sameError ? '' : ' (--same-error keeps the kind of failure)'),
            );
          }
        }
        return finished(final, { interrupted, reproduced, stripped: freezeStripped }, result);
      } finally {
        await backend.close();
      }
    } finally {
      workspace.close();
    }
  } finally {
    reducer.free();
  }
}

/**
 * Runs the original as often as judging it takes: twice (a failure in one run of two
 * is flaky), and with `retries` up to that many times in all while none of its runs
 * showed MSG; a run that hung is not repeated. With several jobs the second run goes at
 * once, on another job's worker (it starts meanwhile, on its own CPUs), and any other
 * workers start too.
 * @param {import('./backends/index.js').Backend} backend
 * @param {string} original
 * @param {{ jobs: number, retries: number, signal?: AbortSignal }} how
 * @returns {Promise<RunResult[]>}
 */
async function runOriginal(backend, original, { jobs, retries, signal }) {
  const stopSecond = new AbortController();
  const abortSecond = () => stopSecond.abort();
  signal?.addEventListener('abort', abortSecond, { once: true });
  const second = jobs > 1 ? backend.run(original, { signal: stopSecond.signal }) : undefined;
  if (jobs > 1 && 'prestart' in backend) backend.prestart();
  /** @type {RunResult[]} */
  const checks = [];
  try {
    checks.push(await backend.run(original, { signal }));
    // A run that hung would hang again: its second run tells nothing.
    if (!ran(checks[0])) stopSecond.abort();
  } finally {
    // Settled before anything else runs (or the backend closes).
    const again = await second;
    if (again && !stopSecond.signal.aborted) checks.push(again);
    signal?.removeEventListener('abort', abortSecond);
  }
  while (
    !signal?.aborted &&
    ran(checks[checks.length - 1]) &&
    (checks.length < 2 || (checks.length < retries && !checks.some((r) => r.foundAnywhere)))
  ) {
    checks.push(await backend.run(original, { signal }));
  }
  return checks;
}

/**
 * Checks the options (a usage or input error for a bad one), reads the program, and
 * gives the settings of the reduction.
 * @param {PythonReduceOptions} options
 */
function settingsOf(options) {
  const { errMsg, output } = options;
  if (typeof errMsg !== 'string' || errMsg === '') {
    // An empty message occurs in every output: everything would reduce to nothing.
    throw new AutoddError('usage', 'the error message must not be empty');
  }
  const backendName = options.backend ?? 'runner';
  if (!BACKENDS.includes(backendName)) {
    throw new AutoddError('usage', `unknown backend '${backendName}' (use ${BACKENDS.join(' or ')})`);
  }
  const timeout = options.timeout ?? 60;
  if (typeof timeout !== 'number' || !(timeout > 0) || !Number.isFinite(timeout)) {
    throw new AutoddError('usage', `the timeout must be a positive number of seconds, not ${timeout}`);
  }
  const jobs = checkJobs(options.jobs);
  const jobCap = 4 * os.availableParallelism();
  if (jobs > jobCap && !options.forceJobs) {
    throw new AutoddError(
      'usage',
      `${jobs} jobs is more than 4 times the ${os.availableParallelism()} CPUs this process may use (${jobCap}); ` +
        'force it with --force-jobs (forceJobs)',
    );
  }
  if (options.stdin !== undefined) checkStdin(options.stdin);
  const retries = options.retries ?? 1;
  if (!Number.isInteger(retries) || retries < 1) {
    throw new AutoddError(
      'usage',
      `retries must be a whole number of runs, at least 1, not ${String(retries)}`,
    );
  }
  const sameError = options.sameError === true;
  if (backendName === 'subproc' && options.memoryLimit !== undefined && options.memoryLimit !== false) {
    throw new AutoddError('usage', 'the memory limit needs the runner backend');
  }
  // The subproc backend has no way to limit memory (the default is then no limit).
  const memoryLimit =
    backendName === 'runner' ? memoryAllowance(options.memoryLimit, jobs, errMsg) : undefined;
  // Forking ahead uses a CPU beside the candidate's: only where each job has two.
  const prefork = backendName === 'runner' && (options.prefork ?? os.availableParallelism() >= 2 * jobs);
  if ((options.file === undefined) === (options.source === undefined)) {
    throw new AutoddError('usage', 'give exactly one of file and source');
  }
  const source = options.file !== undefined ? readSource(options.file) : String(options.source);
  if (output) checkOutput(output, options.file);
  return { errMsg, backendName, timeout, jobs, retries, sameError, memoryLimit, prefork, source };
}

/**
 * Checks that `--stdin` names a readable file.
 * @param {unknown} file
 */
function checkStdin(file) {
  if (typeof file !== 'string' || file === '') throw new AutoddError('usage', 'stdin must name a file');
  try {
    if (!fs.statSync(file).isFile()) throw new Error('not a file');
    fs.accessSync(file, fs.constants.R_OK);
  } catch {
    throw new AutoddError('bad-input', `cannot read ${file} (for the standard input)`);
  }
}

/**
 * Follows the run times of the candidates that reproduce (see LEARN_AFTER): given each
 * such run's time, returns the limit they call for, from the LEARN_AFTER-th on.
 * @param {number} originalMs the original's run time
 * @param {number} ceilingMs the limit the original's run set, never exceeded
 * @returns {(foundMs: number) => number | undefined}
 */
function limitLearner(originalMs, ceilingMs) {
  let found = 0;
  let slowest = 0;
  return (ms) => {
    found += 1;
    slowest = Math.max(slowest, ms);
    if (found < LEARN_AFTER) return undefined;
    const learned = Math.max(LEARNED_FLOOR * originalMs, LEARNED_FACTOR * slowest) + ADAPTIVE_MARGIN_MS;
    return Math.min(ceilingMs, learned);
  };
}

/**
 * @template T
 * @param {() => T} call
 * @returns {T}
 */
function engineCall(call) {
  try {
    return call();
  } catch (err) {
    throw fromEngine(err);
  }
}

/**
 * The bytes each candidate may allocate (undefined: no limit) for the option
 * `memoryLimit` (MiB, false, or undefined for the default).
 * @param {unknown} option
 * @param {number} jobs
 * @param {string} errMsg
 * @returns {number | undefined}
 */
function memoryAllowance(option, jobs, errMsg) {
  if (option === false) return undefined;
  if (option === undefined) {
    if (MEMORY_FAILURE.test(errMsg)) return undefined;
    return Math.max(MEMORY_FLOOR_MIB * MIB, Math.floor((os.totalmem() * MEMORY_SHARE) / jobs));
  }
  if (typeof option !== 'number' || !(option > 0) || !Number.isFinite(option)) {
    throw new AutoddError(
      'usage',
      `the memory limit must be a positive number of MiB, not ${String(option)}`,
    );
  }
  return Math.round(option * MIB);
}
