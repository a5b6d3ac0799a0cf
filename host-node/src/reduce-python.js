// `reducePython()`: what the CLI calls. Checks that the program reproduces, drives
// the engine with a Python backend deciding "interesting" (MSG in stdout or stderr),
// keeps OUTPUT up to date, then strips the freeze markers and confirms the result
// in a fresh `python3` process.

import fs from 'node:fs';
import path from 'node:path';
import { createBackend } from './backends/index.js';
import { describeDevices } from './devices.js';
import { LAUNCH_LOST, SubprocBackend } from './backends/subproc.js';
import { loadEngine } from './engine.js';
import { AutoddError, fromEngine } from './errors.js';
import { OutputWriter } from './files.js';
import { finishInterrupted, finishReduction } from './finish.js';
import { TimeLimits } from './limits.js';
import { runOriginal, runUntilReproduced } from './original.js';
import { Workspace } from './python.js';
import { checkOptions, createReducer, drive } from './reduce.js';
import { MIB, settingsOf } from './settings.js';
import { explainSyntaxError } from './syntax.js';
import {
  failureInfo,
  likelyCauses,
  notReprinted,
  notReproduced,
  Oracle,
  ran,
  runnerDiffers,
  uncompiled,
} from './verdict.js';
import { jobName } from './backends/lost.js';
import { failureKind } from './backends/result.js';

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
  checkOptions(options, 'reducePython', 'file, errMsg');
  const { output, signal, onProgress, onPhase } = options;
  const {
    errMsg,
    backendName,
    timeout,
    jobs,
    retries,
    sameError,
    memoryLimit,
    prefork,
    launchAhead,
    source,
    gpus,
    devices,
    launcher,
    warmUp,
  } = settingsOf(options);
  const oracle = new Oracle({ errMsg, matchQuoted: options.matchQuotedSource === true, sameError });
  const reproduces = (/** @type {RunResult} */ run) => oracle.reproduces(run);

  /** @type {string[]} */
  const warnings = [];
  const warn = (/** @type {string} */ message) => {
    warnings.push(message);
    options.onWarning?.(message);
  };
  if (gpus && devices && jobs > gpus.length) {
    warn(
      `${jobs} jobs share ${gpus.length} GPU${gpus.length === 1 ? '' : 's'} round-robin: ${describeDevices(devices)}`,
    );
  }

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
  // Through a launcher: whether some job's runs ran unisolated on the other side.
  let unisolatedThere = () => false;
  /** @type {{ original: FailureInfo | null, result: FailureInfo | null }} */
  const failure = { original: null, result: null };
  // Python is probed (a process start, tens of milliseconds) while the engine loads
  // and parses the program.
  const workspaceReady = Workspace.create({
    // Through a launcher, `python` names the other side's interpreter (a venv the login
    // node may not have); autodd's own helpers here run on this machine's python3.
    python: launcher ? 'python3' : (options.python ?? 'python3'),
    jobs,
    cwd: options.cwd,
    sourcePath: options.file,
    outputPath: output,
    stdin: options.stdin,
    env: options.env,
    sandbox: options.sandbox !== false,
    devices: devices ?? undefined,
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
    if (err instanceof AutoddError && err.code === 'syntax-error') {
      // What the user's interpreter says: a real error, or newer syntax named.
      throw explainSyntaxError(err, source, options.python ?? 'python3');
    }
    throw err;
  }
  const limits = new TimeLimits({
    timeoutMs: timeout * 1000,
    adaptive: options.adaptiveTimeout !== false,
    learn: options.learnTimeout !== false,
  });
  /** @type {(() => (number[] | null | undefined)[]) | undefined} the runner's CPU shares */
  let cpuShares;
  /** The runner's restarted workers and dropped jobs (see `launcher`). */
  let restarts = () => ({ restarts: 0, droppedJobs: /** @type {number[]} */ ([]) });
  /** Launches made again in the final check's runs through a launcher (its backends, when closed). */
  let freshRestarts = 0;
  /** @type {(() => number | null | undefined) | undefined} the runner's data limit */
  let dataLimit;
  /** @type {(() => (number | undefined)[]) | undefined} the runner's heaps in huge pages */
  let hugePages;
  /** Whether the runner went on without the warm-up program (a worker could not start with it). */
  let warmUpDropped = () => false;
  /**
   * @param {string} text
   * @param {{ interrupted: boolean, checked?: boolean, reproduced?: boolean | null, stripped?: boolean }} how
   * @param {import('./reduce.js').DriveResult} [driven]
   * @returns {PythonReduceResult}
   */
  const finished = (text, { interrupted, checked = true, reproduced = null, stripped = false }, driven) => {
    timings.totalMs = performance.now() - t0;
    const lost = restarts();
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
      isolated: launcher
        ? options.sandbox !== false && !unisolatedThere() && finalCheck?.isolated !== false
        : workspaceIsolated,
      matchQuotedSource: oracle.matchQuoted,
      retries: retried,
      timings,
      warnings,
      candidateTimeoutMs: limits.candidateMs,
      firstCandidateTimeoutMs: limits.firstCandidateMs,
      outcomes,
      compiledAhead,
      ...(cpuShares ? { cpus: cpuShares().map((share) => share ?? null) } : {}),
      ...(hugePages ? { hugePagesMib: hugePages().map((mib) => mib ?? null) } : {}),
      memoryLimitMib: memoryLimit !== undefined && dataLimit?.() ? memoryLimit / MIB : null,
      prefork,
      warmUp: warmUp?.name ?? null,
      warmUpDropped: warmUpDropped(),
      gpus: gpus && devices ? { devices: gpus, jobs: devices } : null,
      ...lost,
      restarts: lost.restarts + freshRestarts,
    };
  };
  try {
    for (const message of reducer.warnings()) warn(message);
    const workspace = await workspaceReady;
    workspaceIsolated = workspace.isolated;
    try {
      const { timeoutMs } = limits;
      const backend = createBackend(backendName, {
        workspace,
        needle: errMsg,
        timeoutMs,
        jobs,
        preload: options.preload === false ? [] : engineCall(() => engine.topLevelImports(source)),
        cpuAffinity: options.cpuAffinity !== false,
        hugePages: options.hugePages !== false,
        warmUp,
        memoryLimit,
        prefork,
        prelaunch: launchAhead,
        launcher,
        isolateThere: options.sandbox !== false,
        programSource: launcher ? source : undefined,
        onWarning: warn,
      });
      if ('restarts' in backend) {
        restarts = () => ({
          restarts: backend.restarts,
          droppedJobs: [...backend.dropped].map((s) => s + 1),
        });
      }
      if (launcher) unisolatedThere = () => backend.unisolatedJobs.size > 0;
      if ('cpuShares' in backend) cpuShares = () => backend.cpuShares();
      if ('dataLimit' in backend) dataLimit = () => backend.dataLimit();
      if ('hugePagesMib' in backend) hugePages = () => backend.hugePagesMib();
      if (warmUp && 'warmUp' in backend) warmUpDropped = () => backend.warmUp === undefined;
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
      /** @type {Map<number, SubprocBackend>} through a launcher: the fresh runs' backends, by job, kept for a run to follow */
      const freshBackends = new Map();
      /**
       * Through a launcher: the backend of the fresh runs started through job `slot`'s.
       * @param {number} slot
       */
      const freshBackend = (slot) => {
        let fresh = freshBackends.get(slot);
        if (!fresh) {
          fresh = new SubprocBackend({
            workspace,
            needle: errMsg,
            timeoutMs: limits.timeoutMs,
            // Starting it (a connection, an allocation) gets what a worker's start gets.
            launchMs: timeout * 1000,
            jobs: 1,
            env: workspace.onJobDevice(workspace.userEnv, slot),
            launcher: /** @type {import('./launcher.js').Launcher} */ (launcher).only(slot),
            job: slot,
            stopWhenLost: false,
            isolateThere: options.sandbox !== false,
            prelaunch: launchAhead,
            // Warned of here unless the reduction warned of that job already.
            onWarning: warn,
            ...('warnedIsolation' in backend ? { warnedIsolation: backend.warnedIsolation } : {}),
          });
          freshBackends.set(slot, fresh);
        }
        return fresh;
      };
      /**
       * Runs `text` once in a fresh `python3`, as a user running OUTPUT would: from
       * OUTPUT's path and the working directory, with the user's environment (no fixed
       * hash seed, no shims unless freeze markers are left), inside the same
       * isolation as the candidates.
       * @param {string} text
       * @param {number} ms time limit
       * @param {AbortSignal} [runSignal]
       * @param {number} [job] whose device and copy of the program it uses
       * @param {boolean} [more] another fresh run of the same job follows: through a
       *   launcher, its launch may start now
       */
      const freshRun = async (text, ms, runSignal, job = 0, more = false) => {
        const shim = text.includes('__freeze__');
        if (launcher) {
          // The user's own run is one on the cluster: a fresh `python3` there, started
          // through the launcher of a job still in the reduction (job 1 unless it was
          // dropped), with the user's environment (no fixed hash seed) and that job's
          // device; if its launches are lost, through the next live job's.
          const { droppedJobs } = restarts();
          const live = Array.from({ length: jobs }, (_, s) => s).filter((s) => !droppedJobs.includes(s + 1));
          const order = live.length ? live.map((_, i) => live[(job + i) % live.length]) : [0];
          /** @type {import('./backends/result.js').RunResult | undefined} */
          let result;
          for (const slot of order) {
            const there = launcher.only(slot);
            finalCheck = {
              command: [...there.command(0), path.basename(target ?? workspace.file(0))],
              cwd: 'a private temporary folder there',
              isolated: false,
              freezeShim: shim,
            };
            const fresh = freshBackend(slot);
            fresh.limitTimeout(ms);
            try {
              result = await fresh.run(text, { signal: runSignal, ahead: more });
            } finally {
              // Kept for the run after it, if one follows: that run's launch starts
              // while this one goes on.
              if (!more || runSignal?.aborted) {
                freshBackends.delete(slot);
                freshRestarts += fresh.restarts;
                await fresh.close();
              }
            }
            finalCheck.isolated = options.sandbox !== false && !result.unisolatedThere && !result.unstarted;
            if (!(result.outcome === 'crashed' && result.error?.startsWith(LAUNCH_LOST))) break;
          }
          return /** @type {import('./backends/result.js').RunResult} */ (result);
        }
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
          env: workspace.onJobDevice(shim ? workspace.freezeEnv : workspace.userEnv, job),
          sandbox: () => workspace.sandbox('final', target ?? undefined),
          program: direct ? /** @type {string} */ (target) : undefined,
          job,
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
        const stuckCheck = options.stuckDetection !== false && 'detectStuck' in backend;
        let original = reducer.best();
        // The user's own text: its comments, line numbers and layout may be part of
        // how it fails (a traceback's line, inspect.getsource, a logged lineno).
        const checks = await runOriginal(backend, source, { jobs, retries, signal });
        if (signal?.aborted) return finished(original, { interrupted: true, checked: false });
        const judged = oracle.judgeOriginal(checks, retries, warn);
        if (!judged) {
          const last = checks[checks.length - 1];
          if (launcher && checks.every((run) => run.unstarted)) {
            // Not the program's failure: nothing ran it. What each job's launch said,
            // held back from warnings until now, once for the jobs that said the same.
            const starts = 'failedStarts' in backend ? backend.failedStarts : new Map();
            /** @type {Map<string, string[]>} what was said → the jobs that said it */
            const said = new Map();
            for (const [slot, why] of [...starts].sort(([a], [b]) => a - b)) {
              said.set(why, [...(said.get(why) ?? []), jobName(launcher, slot)]);
            }
            const why = said.size
              ? [...said].map(([text, who]) => `${who.join(', ')}: ${text || 'nothing on stderr'}`).join('; ')
              : last.error;
            // A shell there that could not read the worker's line: the words went unquoted.
            const quoting =
              !launcher.viaShell && /syntax error|unexpected/i.test(why ?? '')
                ? '; if the launcher hands its words to a shell there as one line, add --launcher-shell yes'
                : '';
            throw new AutoddError(
              'workers-lost',
              `Python did not start through --launcher: ${why}${quoting}; try it by hand: ${launcher.probeLine(0)}`,
            );
          }
          const name = path.basename(workspace.file(0));
          const refused = uncompiled(last, name);
          if (refused) {
            const python = launcher
              ? `${launcher.python} there`
              : `${options.python ?? 'python3'} (Python ${workspace.info.version})`;
            throw new AutoddError(
              'no-python',
              `${python} cannot compile ${name} (line ${refused.line}: ${refused.error}), so none of it ran: ` +
                'if it needs a newer Python, name one with --python',
            );
          }
          const hints = likelyCauses(last, source, {
            stdin: Boolean(workspace.stdin),
            preloaded: backendName === 'runner' && options.preload !== false,
            isolated: workspace.isolated,
            launched: Boolean(launcher),
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
          original = reducer.best();
        }
        if (backendName === 'runner' && !launcher) {
          // A candidate is a fork of a warm worker, not a fresh Python: the original,
          // run as one in the same environment, must fail the same way there, or the
          // runner cannot judge this program (a crash of a library's at its exit, say).
          const plain = new SubprocBackend({ workspace, needle: errMsg, timeoutMs: timeout * 1000, jobs: 1 });
          let run;
          try {
            run = await runUntilReproduced(plain, source, { retries, signal, reproduces });
          } finally {
            await plain.close();
          }
          if (signal?.aborted) return finished(original, { interrupted: true, checked: false });
          if (!reproduces(run)) throw runnerDiffers(errMsg, run, failure.original, timeout);
          if (failureKind(run) !== failure.original.kind) {
            warn(
              `the original fails with ${failureKind(run)} in a fresh python3 but with ${failure.original.kind} in the runner's ` +
                'forked workers, which judge the candidates: use --backend subproc to judge them as a fresh python3 does',
            );
          }
        }
        if (original !== source) {
          // Every candidate rewrites the program as the engine prints it (no comments
          // or blank lines, its own layout): that copy must reproduce too.
          const copy = await runUntilReproduced(backend, original, { retries, signal, reproduces });
          if (signal?.aborted) return finished(original, { interrupted: true, checked: false });
          if (!reproduces(copy)) throw notReprinted(errMsg, copy, failure.original, timeout);
        }
        limits.setOriginal(Math.min(...good.map((r) => r.ms)));
        if (limits.adaptive) backend.limitTimeout(limits.candidateMs);
        if (stuckCheck) backend.detectStuck(limits.stuckMs);
        const t1 = performance.now();
        timings.checkMs = t1 - t0;
        const writer = new OutputWriter(output);
        await writer.start(original);

        // The final check's first launch starts now and waits for the result through
        // the reduction: it does not keep the user waiting for a connection at the end.
        // Not through a template without a host (srun): it would hold an allocation.
        if (launcher && launchAhead && launcher.hosts.length > 0) freshBackend(0).launchEarly();
        onPhase?.('reduce');
        /**
         * Runs over whose verdict has not entered the search (yet), for `onRun`.
         * @type {Map<number, RunRecord>}
         */
        const uncounted = new Map();
        const result = await drive(reducer, {
          jobs,
          lookahead: options.lookahead !== false,
          speculate: options.speculate !== false,
          // Compiled ahead by the process forked for it (runner, forking ahead, one job).
          prepare: 'prepare' in backend ? (candidate) => backend.prepare(candidate.source) : undefined,
          signal,
          onProgress: (progress) => {
            const record = uncounted.get(progress.id);
            if (record) {
              uncounted.delete(progress.id);
              options.onRun?.({ ...record, counted: true });
            }
            onProgress?.(progress);
          },
          evaluate: async (candidate, candidateSignal) => {
            const startMs = performance.now() - t1;
            const { run, runs } = await attempt(candidate.source, candidateSignal);
            const found = reproduces(run);
            const limit = found ? limits.reproducedIn(run.ms) : undefined;
            if (limit !== undefined) backend.limitTimeout(limit);
            /** @type {RunRecord} */
            const record = {
              id: candidate.id,
              phase: candidate.phase,
              rewrites: candidate.rewrites,
              sites: candidate.sites,
              bytes: Buffer.byteLength(candidate.source),
              found,
              counted: false,
              outcome: run.outcome,
              startMs: Math.round(startMs * 10) / 10,
              ms: Math.round(run.ms * 10) / 10,
              runs,
            };
            // A stale run took a job's time too: it is recorded, as not counted.
            if (run.outcome === 'cancelled') options.onRun?.(record);
            else if (options.onRun) uncounted.set(candidate.id, record);
            // A hang costs the whole time limit: the engine avoids its rewrite later.
            return found || (run.outcome === 'timeout' || run.outcome === 'stuck' ? 'hung' : false);
          },
          onAccept: output ? (best) => writer.keep(best) : undefined,
        })
          .finally(() => {
            // What is left ended before an earlier candidate was accepted.
            for (const record of uncounted.values()) options.onRun?.(record);
            uncounted.clear();
          })
          .finally(() => writer.idle()); // never rejects: a failed write is kept
        await writer.settle();
        const t2 = performance.now();
        timings.reduceMs = t2 - t1;
        timings.engineMs = result.engineMs;
        timings.engineOutsideRunsMs = result.engineOutsideRunsMs;
        /** @type {import('./finish.js').FinishTools} */
        const tools = {
          reproduces,
          stripFreeze: (text) => engineCall(() => engine.stripFreeze(text)),
          write: (text) => writer.write(text),
          freshRun,
          keepFreeze: options.keepFreeze === true,
        };
        if (result.interrupted || signal?.aborted) {
          const { final, stripped } = await finishInterrupted(tools, {
            best: result.source,
            written: writer.written,
            quickMs: limits.quickMs,
          });
          return finished(final, { interrupted: true, stripped }, result);
        }

        onPhase?.('finish');
        const { final, stripped, confirms } = await finishReduction(
          {
            ...tools,
            attempt: async (text, runSignal) => (await attempt(text, runSignal)).run,
            warn,
            closeBackend: () => backend.close(),
          },
          // As many runs as checked the original, so a flaky result shows as such.
          // Isolated, each in its own view, they go at once as the original's did;
          // otherwise one after the other, as the user would run them.
          {
            result: result.source,
            checkRuns: failure.original?.runs ?? 1,
            timeoutMs,
            together: workspace.isolated && !launcher ? jobs : 1,
            signal,
          },
        );
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
        return finished(final, { interrupted, reproduced, stripped }, result);
      } finally {
        await backend.close();
        for (const fresh of freshBackends.values()) await fresh.close();
      }
    } finally {
      workspace.close();
    }
  } finally {
    reducer.free();
  }
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
