// The runner backend: one long-lived Python worker per job (python/autodd_runner/)
// that imports the program's modules once and forks a child per candidate. The
// protocol is described at the top of the worker.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { PYTHON_DIR } from '../python.js';
import {
  Capture,
  endLauncher,
  killGroup,
  trackGroup,
  trackGroupSource,
  untrackGroup,
  untrackGroupSource,
} from './capture.js';
import { dropJob, JobWarnings, untilNotLost } from './lost.js';
import { runResult, signalName } from './result.js';
import { isolationThere } from './subproc.js';
import { Slots } from './slots.js';

const WORKER = path.join(PYTHON_DIR, 'autodd_worker.py');
/** How long past the candidate's timeout an unresponsive worker is given before it is killed. */
const GRACE_MS = 5000;
/** How much of the end of a worker's own stderr is kept for messages. */
const WORKER_STDERR_BYTES = 32 * 1024;
/** How long close() waits for a worker to exit by itself. */
const EXIT_WAIT_MS = 1000;
/** How a run ends whose worker died under it (a `crashed` run's error starts so). */
const WORKER_DIED = 'the Python worker died';
/** The largest program compiled ahead (the worker's AHEAD_BYTES). */
const AHEAD_BYTES = 65536;

/** @typedef {import('./result.js').RunResult} RunResult */

/**
 * @typedef {object} WorkerOptions
 * @property {import('../python.js').Workspace} workspace
 * @property {string} needle
 * @property {string[]} preload
 * @property {string} scriptDir
 * @property {string} pidFile where the worker keeps the pid of the candidate it runs
 * @property {number} timeoutMs
 * @property {[number, number]} [share] `[k, n]`: keep to the k-th of n shares of the
 *   CPUs where the worker runs (see `cpu_share` in the worker)
 * @property {number} [memoryLimit] bytes each candidate may allocate beyond what the
 *   worker holds (see `limit_data` in the worker)
 * @property {boolean} [prefork] fork each candidate ahead of its request (see `Zygote`
 *   in the worker)
 * @property {boolean} [hugePages] back a large heap with huge pages before the first
 *   fork (see `collapse_heap` in the worker)
 * @property {{ source: string, name: string }} [warmUp] a program the worker runs once
 *   before its first fork (see `warm_up_with` in the worker)
 * @property {import('../python.js').SandboxConfig | null} [sandbox] isolate each
 *   candidate (see python/autodd_runner/sandbox.py); null: run them unisolated
 * @property {string | null} [programDir] the program's folder, whose modules are never
 *   preloaded
 * @property {string | null} [stdin] a file fed to each candidate's standard input
 * @property {string} cwd the working directory of its candidates
 * @property {NodeJS.ProcessEnv} env the environment of the worker and its candidates
 * @property {{ argv: string[], header: string, isolate: boolean, programSource?: string }} [launch] start the
 *   worker through this command (see `Launcher`), which first reads `header` on its
 *   stdin; the candidates' sources then travel over the protocol, and the worker keeps
 *   its files to itself, isolating its candidates there if `isolate` and it can
 */

/** One Python worker process and the candidate it runs, if any. */
class Worker {
  /** @param {WorkerOptions} options */
  constructor({
    workspace,
    needle,
    preload,
    scriptDir,
    pidFile,
    timeoutMs,
    share,
    memoryLimit,
    prefork,
    hugePages,
    warmUp,
    sandbox,
    programDir,
    stdin,
    cwd,
    env,
    launch,
  }) {
    /** Started through a launcher: no file of this machine is the worker's. */
    this.remote = Boolean(launch);
    this.timeoutMs = timeoutMs;
    /** @type {number | undefined} from when on a run is probed for being stuck */
    this.stuckAfterMs = undefined;
    this.preload = preload;
    this.dead = false;
    this.seq = 0;
    /** @type {{ id: number, finish: (r: RunResult) => void } | undefined} */
    this.current = undefined;
    this.pidFile = pidFile;
    /** The candidate's group, for a hard exit of this process. */
    this.candidateGroup = () => this.candidatePid();
    /**
     * The worker's own stderr (import errors, crashes), for messages: enough of it to
     * hold a remote shell's complaint about the line that starts the worker, which
     * quotes the worker's code whole (see `Launcher.brief`).
     */
    this.stderr = new Capture(Buffer.alloc(0), WORKER_STDERR_BYTES);
    /** @type {string[]} */
    this.failedImports = [];
    /** @type {number[] | null} the CPUs the worker and its candidates keep to (null: all) */
    this.cpus = null;
    /** @type {number | null} the RLIMIT_DATA its candidates get (null: none) */
    this.dataLimit = null;
    /** MiB of the worker's heap it backed with huge pages before its first fork */
    this.hugePagesMib = 0;
    /** @type {string | null} the exception that stopped the warm-up program, if any */
    this.warmUpError = null;
    /** @type {string | null} started remotely: why its candidates run unisolated there */
    this.isolationError = null;
    /** @type {string[]} started remotely: the folders its candidates see read-only there */
    this.refused = [];
    /** Whether its isolated candidates share its PID namespace (the kernel refused them one). */
    this.sharedPids = false;
    /** Whether it said it was ready. */
    this.started = false;
    /** Whether it is being killed. */
    this.ending = false;
    /** Whether it said it got as far as the warm-up program. */
    this.warming = false;

    const [command, ...args] = launch ? launch.argv : [workspace.python, WORKER];
    this.proc = spawn(command, args, {
      cwd,
      env: launch ? workspace.userEnv : env,
      // Its own group: a Ctrl-C at the terminal reaches the host, which then shuts
      // workers down in order instead of them dying mid-protocol.
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    trackGroup(this.proc.pid, Boolean(launch));
    trackGroupSource(this.candidateGroup);
    this.proc.stdin?.on('error', () => {}); // EPIPE once the worker is gone
    this.proc.stderr?.on('data', (chunk) => this.stderr.feed(chunk));
    /** @type {(ok: boolean) => void} */
    let onReady = () => {};
    /** Resolves to whether the worker came up (false: it died or hung while importing). */
    this.ready = new Promise((resolve) => (onReady = resolve));
    this.onReady = onReady;
    const readyTimer = setTimeout(() => this.kill(), timeoutMs);
    this.ready.then(() => clearTimeout(readyTimer));

    if (this.proc.stdout) {
      // JSON lines; split by hand (readline's machinery cost more than the parsing).
      let pending = '';
      this.proc.stdout.setEncoding('utf8');
      this.proc.stdout.on('data', (/** @type {string} */ chunk) => {
        pending += chunk;
        let end;
        while ((end = pending.indexOf('\n')) >= 0) {
          const line = pending.slice(0, end);
          pending = pending.slice(end + 1);
          this.receive(line);
        }
      });
    }
    this.proc.on('error', () => this.die());
    this.proc.on('close', () => this.die());
    // What every worker is told, here or on the other side of a launcher.
    const init = {
      op: 'init',
      needle,
      preload,
      ...(memoryLimit ? { memoryLimit } : {}),
      ...(hugePages === false ? { hugePages } : {}),
      ...(warmUp ? { warmUp } : {}),
      ...(share ? { share } : {}),
    };
    if (launch) {
      this.proc.stdin?.write(launch.header);
      // The other side isolates its candidates where its kernel allows (sandbox.py).
      this.send({
        ...init,
        fileName: path.basename(workspace.file(0)),
        ...(launch.isolate ? { isolate: true } : {}),
        ...(launch.programSource !== undefined ? { programSource: launch.programSource } : {}),
      });
      return;
    }
    this.send({
      ...init,
      scriptDir,
      pidFile,
      ...(prefork ? { prefork } : {}),
      ...(sandbox ? { sandbox } : {}),
      ...(programDir ? { programDir } : {}),
      ...(stdin ? { stdin } : {}),
    });
  }

  /** @param {object} message */
  send(message) {
    if (!this.dead) this.proc.stdin?.write(JSON.stringify(message) + '\n');
  }

  /** @param {string} line */
  receive(line) {
    /** @type {any} */
    let message;
    try {
      message = JSON.parse(line);
    } catch {
      return; // not ours; the protocol channel is private, so this should not happen
    }
    if (message.event === 'warming') {
      this.warming = true;
      return;
    }
    if (message.event === 'ready') {
      this.failedImports = message.failed.map((/** @type {[string, string]} */ [m, e]) => `${m} (${e})`);
      this.cpus = message.cpus ?? null;
      this.dataLimit = message.dataLimit ?? null;
      this.hugePagesMib = message.hugePagesMib ?? 0;
      this.warmUpError = message.warmUpError ?? null;
      this.isolationError =
        message.isolated === false ? (message.isolationError ?? 'isolation failed') : null;
      this.refused = Array.isArray(message.refused) ? message.refused.map(String) : [];
      this.sharedPids = message.sharedPids === true;
      this.started = true;
      this.onReady(true);
      return;
    }
    const current = this.current;
    if (!current || message.id !== current.id) return;
    if (message.event === 'done') {
      const common = { stdoutTail: message.stdoutTail, stderrTail: message.stderrTail, ms: 0 };
      if (message.error) {
        current.finish(runResult({ ...common, outcome: 'crashed', error: message.error }));
      } else if (message.killed) {
        // `timeout`, `stuck` or `cancelled`
        current.finish(runResult({ ...common, outcome: message.killed }));
      } else {
        current.finish(
          runResult({
            ...common,
            found: message.found,
            foundAnywhere: message.foundAnywhere,
            exception: message.exception,
            msgLine: message.msgLine,
            outcome: message.signal === null ? 'exited' : 'signaled',
            exitCode: message.exitCode,
            signal: signalName(message.signal),
            ...(message.compiledAhead ? { compiledAhead: true } : {}),
          }),
        );
      }
    }
  }

  die() {
    if (this.dead) return;
    this.dead = true;
    untrackGroup(this.proc.pid);
    untrackGroupSource(this.candidateGroup);
    this.onReady(false);
    if (this.current) {
      killGroup(this.candidatePid());
      const why = this.stderr.text().trim().split('\n').slice(-3).join(' | ');
      this.current.finish(
        runResult({ outcome: 'crashed', error: `${WORKER_DIED}${why ? `: ${why}` : ''}`, ms: 0 }),
      );
    }
  }

  /**
   * The pid (and process group) of the candidate the worker runs, from the file the
   * worker keeps it in; undefined between runs.
   * @returns {number | undefined}
   */
  candidatePid() {
    if (!this.current || this.remote) return undefined;
    try {
      const pid = Number(fs.readFileSync(this.pidFile, 'latin1').trim());
      return pid > 0 ? pid : undefined;
    } catch {
      return undefined;
    }
  }

  /** Kills the worker and the candidate it runs (a launcher gets to end its side first). */
  kill() {
    // Given no more runs while its launcher ends: a retry starts a new worker.
    this.ending = true;
    killGroup(this.candidatePid());
    if (this.remote) endLauncher(this.proc);
    else killGroup(this.proc.pid);
  }

  /**
   * @param {string} file the candidate's file; for a remote worker, its source
   * @param {AbortSignal | undefined} signal
   * @returns {Promise<RunResult>}
   */
  run(file, signal) {
    const start = performance.now();
    return new Promise((resolve) => {
      const id = ++this.seq;
      const onAbort = () => this.send({ op: 'cancel', id });
      // The worker enforces the timeout; this only catches a worker that stopped answering.
      const fallback = setTimeout(() => {
        this.kill();
        // A launched worker that stopped answering is most likely a connection that
        // stalled (a host that lost power sends no goodbye): a fault, so the candidate
        // runs again on a new worker, rather than a verdict.
        finish(
          this.remote
            ? runResult({
                outcome: 'crashed',
                error: `${WORKER_DIED}: no answer through the launcher`,
                ms: 0,
              })
            : runResult({ outcome: 'timeout', ms: 0 }),
        );
      }, this.timeoutMs + GRACE_MS);
      const finish = (/** @type {RunResult} */ result) => {
        if (this.current?.id !== id) return;
        this.current = undefined;
        clearTimeout(fallback);
        signal?.removeEventListener('abort', onAbort);
        resolve({ ...result, ms: performance.now() - start });
      };
      this.current = { id, finish };
      this.send({
        op: 'run',
        id,
        ...(this.remote ? { source: file } : { path: file }),
        timeout: this.timeoutMs / 1000,
        ...(this.stuckAfterMs === undefined ? {} : { stuckAfter: this.stuckAfterMs / 1000 }),
      });
      signal?.addEventListener('abort', onAbort, { once: true });
      if (signal?.aborted) onAbort();
    });
  }

  /**
   * Tells the worker which program the next run of `file` will likely hold, so that
   * with `prefork` the process forked for it compiles it meanwhile.
   * @param {string} file
   * @param {string} source
   */
  prepare(file, source) {
    if (!this.dead && !this.remote) this.send({ op: 'prepare', path: file, source });
  }

  /** Asks the worker to exit (it kills a running candidate first); kills it if it does not. */
  async close() {
    if (this.dead) return;
    const exited = new Promise((resolve) => this.proc.once('close', resolve));
    if (this.current) this.send({ op: 'cancel', id: this.current.id });
    this.proc.stdin?.end();
    const timer = setTimeout(() => this.kill(), EXIT_WAIT_MS);
    await exited;
    clearTimeout(timer);
  }
}

export class RunnerBackend {
  /**
   * @param {object} options
   * @param {import('../python.js').Workspace} options.workspace
   * @param {string} options.needle the message that makes a run interesting
   * @param {number} options.timeoutMs
   * @param {number} options.jobs
   * @param {string[]} [options.preload] modules every worker imports once
   * @param {boolean} [options.cpuAffinity] with several jobs on a machine, keep each
   *   job's worker and its candidates to that job's share of its CPUs (default true;
   *   through a launcher, the jobs sent to the same host share it)
   * @param {boolean} [options.hugePages] back a large warm worker's heap with huge pages
   *   (default true)
   * @param {{ source: string, name: string }} [options.warmUp] a program each worker runs
   *   once, after preloading and before its first fork
   * @param {number} [options.memoryLimit] bytes each candidate may allocate beyond what
   *   its worker holds; a candidate that wants more gets a `MemoryError` (Linux; none
   *   by default)
   * @param {boolean} [options.prefork] fork each candidate's process, and let it compile
   *   a warm-up program, while the one before runs (Linux; for jobs with a CPU to
   *   spare; default false)
   * @param {import('../launcher.js').Launcher} [options.launcher] start each job's worker
   *   through the user's launcher (ssh, srun, …) instead of here
   * @param {boolean} [options.isolateThere] with a launcher: isolate candidates on the
   *   other side where its kernel allows (default true; a job where it does not is warned of)
   * @param {string} [options.programSource] with a launcher: the original program, from
   *   which a worker there learns the modules beside it to compile once (see precompile.py)
   * @param {(message: string) => void} [options.onWarning]
   */
  constructor({
    workspace,
    needle,
    timeoutMs,
    jobs,
    preload = [],
    cpuAffinity = true,
    hugePages = true,
    warmUp,
    memoryLimit,
    prefork = false,
    launcher,
    isolateThere = true,
    programSource,
    onWarning,
  }) {
    this.launcher = launcher;
    this.isolateThere = isolateThere;
    this.programSource = programSource;
    this.name = 'runner';
    this.workspace = workspace;
    this.needle = needle;
    this.timeoutMs = timeoutMs;
    /** Limit for starting a worker (imports included), and the most `limitTimeout` sets. */
    this.startTimeoutMs = timeoutMs;
    this.preload = preload;
    this.cpuAffinity = cpuAffinity;
    this.hugePages = hugePages;
    this.warmUp = warmUp;
    this.memoryLimit = memoryLimit;
    this.prefork = prefork;
    this.onWarning = onWarning ?? (() => {});
    this.slots = new Slots(jobs);
    /** @type {(Worker | undefined)[]} */
    this.workers = new Array(jobs).fill(undefined);
    /** @type {(Promise<Worker | undefined> | undefined)[]} a slot's worker being started */
    this.starting = new Array(jobs).fill(undefined);
    this.warnedImports = false;
    this.warnedWarmUp = false;
    /** Whether the warning that candidates share a PID namespace was given. */
    this.warnedPids = false;
    /** @type {Set<number>} jobs told their candidates run unisolated on the other side */
    this.warnedIsolation = new Set();
    /** @type {Set<number>} started remotely: jobs whose candidates ran unisolated there */
    this.unisolatedJobs = new Set();
    this.closed = false;
    /** Workers started again because one died (under a candidate or between two). */
    this.restarts = 0;
    /** @type {Set<number>} jobs whose worker could not be started again: given no more runs */
    this.dropped = new Set();
    /** @type {Set<number>} jobs whose worker was up at some point */
    this.upSlots = new Set();
    /** The warnings about jobs' starts, held until a worker is up. */
    this.jobWarnings = new JobWarnings(this.onWarning);
    /** @type {Map<number, string>} jobs whose worker did not start through the launcher, and why */
    this.failedStarts = new Map();
    /** @type {Map<number, string>} jobs whose worker's Python failed as it started: its last words */
    this.crashedStarts = new Map();
  }

  /**
   * Sets the per-candidate time limit, never above the timeout the backend was made
   * with (nor the time allowed to start a worker).
   * @param {number} ms
   */
  limitTimeout(ms) {
    this.timeoutMs = Math.min(this.startTimeoutMs, ms);
    for (const worker of this.workers) if (worker) worker.timeoutMs = this.timeoutMs;
  }

  /**
   * From now on, a candidate that has run `ms` is probed for being stuck: every thread
   * waiting for an event with no timeout, no child process, no CPU used between two
   * probes 10 ms apart. A stuck candidate is killed (outcome `stuck`) instead of
   * running to its time limit. Linux only; elsewhere nothing is ever stuck.
   * @param {number} ms
   */
  detectStuck(ms) {
    this.stuckAfterMs = ms;
    for (const worker of this.workers) if (worker) worker.stuckAfterMs = ms;
  }

  /**
   * Runs one program in a fresh fork of a warm worker.
   * @param {string} source
   * @param {{ signal?: AbortSignal }} [options] aborting kills the run (outcome `cancelled`)
   * @returns {Promise<RunResult>}
   */
  async run(source, { signal } = {}) {
    for (;;) {
      const slot = await this.slots.acquire();
      let dropped = false;
      try {
        if (signal?.aborted || this.closed) return runResult({ outcome: 'cancelled', ms: 0 });
        const file = this.launcher ? source : this.workspace.write(slot, source);
        // A worker that dies under a candidate (its launcher exited, its connection
        // dropped, its host rebooted) is started again and the candidate run again.
        const { result, jobLost } = await untilNotLost(
          async () => {
            // A worker still starting (its job waits in a queue, its host does not
            // answer yet) is not waited for once the run is cancelled (Ctrl-C).
            const worker = await unlessAborted(this.worker(slot), signal);
            if (signal?.aborted) return { result: runResult({ outcome: 'cancelled', ms: 0 }) };
            if (!worker) {
              const why = this.failedStarts.get(slot) ?? this.crashedStarts.get(slot);
              const error = `the Python worker did not start${why ? ` (${why})` : ''}`;
              // Unstarted: Python never ran (the launcher's failure), not Python's error.
              const unstarted = this.failedStarts.has(slot);
              const result = runResult({ outcome: 'crashed', error, unstarted, ms: 0 });
              return { result, lost: { started: false } };
            }
            const result = await worker.run(file, signal);
            const died = result.outcome === 'crashed' && result.error?.startsWith(WORKER_DIED);
            return died ? { result, lost: { started: true } } : { result };
          },
          { signal, closed: () => this.closed },
        );
        if (!jobLost) return result;
        const why = this.upSlots.has(slot)
          ? `its worker died and could not be started again (${result.error})`
          : /** @type {string} */ (result.error);
        dropped = dropJob(this, this.upSlots.size > 0, slot, why);
        if (!dropped) return result;
      } finally {
        if (!dropped) this.slots.release(slot);
      }
    }
  }

  /**
   * The program the next `run` will likely get (the engine proposes it while the
   * current candidate runs): with `prefork` and one job, the process forked for the
   * next candidate compiles it meanwhile, off the run's critical path (a fifth of a
   * run or more), and uses that code only if the file it runs holds exactly this
   * source. A guess gone stale costs that compile on the spare CPU. With several
   * jobs, which one runs it is not known: nothing is done.
   * @param {string} source
   */
  prepare(source) {
    const worker = this.workers[0];
    if (!this.prefork || this.workers.length !== 1 || !worker || this.closed || this.launcher) return;
    if (Buffer.byteLength(source) > AHEAD_BYTES) return;
    worker.prepare(this.workspace.file(0), source);
  }

  /**
   * Starts the workers of every slot now, so those the check does not use are warm
   * by the time the reduction needs them (they would otherwise start, one by one,
   * while the other slots wait on the reduction's first verdicts).
   * @returns {Promise<void>} once every worker is up (or failed to start)
   */
  async prestart() {
    await Promise.all(this.workers.map((_, slot) => this.worker(slot)));
  }

  /**
   * The live worker of a slot, started (or replaced) as needed.
   * @param {number} slot
   * @returns {Promise<Worker | undefined>}
   */
  worker(slot) {
    const existing = this.workers[slot];
    if (existing && !existing.dead && !existing.ending && !this.starting[slot])
      return Promise.resolve(existing);
    // A worker lost (under a candidate or between two) is started again.
    if (existing && !this.starting[slot] && !this.closed) this.restarts += 1;
    this.starting[slot] ??= this.start(slot).finally(() => {
      this.starting[slot] = undefined;
    });
    return this.starting[slot];
  }

  /**
   * Job `slot`'s share of the CPUs where its worker runs: here, the slot's of all jobs;
   * through a launcher, its share of the jobs sent to the same host.
   * @param {number} slot
   * @returns {[number, number] | undefined}
   */
  share(slot) {
    if (this.launcher) return this.launcher.share(slot, this.workers.length);
    return this.workers.length > 1 ? [slot, this.workers.length] : undefined;
  }

  /**
   * Starts a slot's worker; without the warm-up program, then without preloading, if
   * either kills or hangs it.
   * @param {number} slot
   * @returns {Promise<Worker | undefined>}
   */
  async start(slot) {
    for (;;) {
      if (this.closed) return undefined;
      // Read once: another slot's worker may drop it while this one starts.
      const warmUp = this.warmUp;
      const worker = new Worker({
        workspace: this.workspace,
        needle: this.needle,
        preload: this.preload,
        scriptDir: path.dirname(this.workspace.file(slot)),
        pidFile: this.workspace.pidFile(slot),
        timeoutMs: this.startTimeoutMs,
        share: this.cpuAffinity ? this.share(slot) : undefined,
        memoryLimit: this.memoryLimit,
        prefork: this.prefork,
        hugePages: this.hugePages,
        warmUp,
        sandbox: this.workspace.sandbox(slot),
        programDir: this.workspace.programDir,
        stdin: this.workspace.stdin,
        cwd: this.workspace.runCwd(slot),
        env: this.workspace.jobEnvs[slot],
        ...(this.launcher
          ? {
              launch: {
                argv: this.launcher.argv(slot, this.workspace.jobEnvs[slot], this.workspace.devices !== null),
                header: this.launcher.header,
                isolate: this.isolateThere,
                programSource: this.programSource,
              },
            }
          : {}),
      });
      this.workers[slot] = worker;
      if (await worker.ready) {
        this.upSlots.add(slot);
        this.jobWarnings.release();
        worker.timeoutMs = this.timeoutMs;
        worker.stuckAfterMs = this.stuckAfterMs;
        if (worker.failedImports.length && !this.warnedImports) {
          this.warnedImports = true;
          this.onWarning(`not preloaded (import failed): ${worker.failedImports.join(', ')}`);
        }
        const there = isolationThere(
          slot,
          this.launcher?.host(slot),
          worker.isolationError ?? undefined,
          worker.refused,
          'candidates',
        );
        if (worker.isolationError) this.unisolatedJobs.add(slot);
        if (there && !this.warnedIsolation.has(slot)) {
          this.warnedIsolation.add(slot);
          this.onWarning(there);
        }
        if (worker.sharedPids && !this.warnedPids) {
          this.warnedPids = true;
          this.onWarning(
            `${this.launcher ? `on ${this.launcher.host(slot)}, ` : ''}the kernel refused candidates a PID namespace ` +
              'with a /proc of their own (as under a container whose /proc hides parts): a candidate can signal ' +
              'processes outside its run (--backend subproc runs each in one where the kernel allows)',
          );
        }
        if (worker.warmUpError && !this.warnedWarmUp) {
          this.warnedWarmUp = true;
          this.onWarning(
            `the warm-up program stopped with ${worker.warmUpError}; candidates start with what it did before that`,
          );
        }
        return worker;
      }
      // Stopped while it started (Ctrl-C): nothing to say about it.
      if (this.closed) return undefined;
      if (this.launcher && !worker.warming && !worker.stderr.text().includes('Traceback')) {
        // Not Python's failure but the launcher's (a host down, a refused key): say so.
        const why = this.launcher.brief(worker.stderr.text().trim().split('\n').slice(-2).join(' | '));
        if (!this.failedStarts.has(slot)) {
          this.failedStarts.set(slot, why);
          this.jobWarnings.warn(
            `job ${slot + 1}'s worker did not start through the launcher${why ? `: ${why}` : ''}`,
          );
        }
        return undefined;
      }
      if (warmUp) {
        // The warm-up exited, crashed or outlasted the time a worker has to start
        // (warned once: with -j N, each slot's worker ran into it).
        if (this.warmUp) {
          this.onWarning(
            `the Python worker did not start with the warm-up program ${warmUp.name} ` +
              `(it exited, crashed or took over ${this.startTimeoutMs / 1000} s); going on without it`,
          );
        }
        this.warmUp = undefined;
        continue;
      }
      if (!this.preload.length) {
        const last = worker.stderr.text().trim().split('\n').at(-1);
        if (last) this.crashedStarts.set(slot, last);
        return undefined;
      }
      // An import crashed or hung the worker: go on without preloading.
      this.onWarning('the Python worker did not start with preloaded modules; preloading is off');
      this.preload = [];
    }
  }

  /**
   * The CPUs each job's worker keeps to, or kept to once closed (null: all it may
   * use), by slot; undefined for a worker not started.
   * @returns {(number[] | null | undefined)[]}
   */
  cpuShares() {
    return this.workers.map((worker) => worker?.cpus);
  }

  /**
   * MiB of each job's warm worker that candidates inherit in huge pages, by slot (0:
   * none; a worker holding less than 64 MiB keeps its pages); undefined for a worker
   * not started.
   * @returns {(number | undefined)[]}
   */
  hugePagesMib() {
    return this.workers.map((worker) => (worker?.started ? worker.hugePagesMib : undefined));
  }

  /**
   * The RLIMIT_DATA the candidates got, in bytes, from the first worker that came up
   * (null: none); undefined if none did.
   * @returns {number | null | undefined}
   */
  dataLimit() {
    return (
      this.workers.find((worker) => worker?.dataLimit != null)?.dataLimit ??
      (this.workers[0] ? null : undefined)
    );
  }

  /** Stops every worker and the candidates they run. */
  async close() {
    this.closed = true;
    await Promise.all(this.workers.map((w) => w?.close()));
  }
}

/**
 * What `promise` gives, or undefined as soon as `signal` is aborted.
 * @template T
 * @param {Promise<T>} promise
 * @param {AbortSignal | undefined} signal
 * @returns {Promise<T | undefined>}
 */
export function unlessAborted(promise, signal) {
  if (!signal) return promise;
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const onAbort = () => resolve(undefined);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
