// The subproc backend: a fresh `python3 FILE` per candidate, in its own process
// group so a timeout or a cancel kills everything it started.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { SANDBOX_PY } from '../python.js';
import { killGroup, trackGroup, untrackGroup } from './capture.js';
import { runResult } from './result.js';
import { OutputScan } from './scan.js';
import { Slots } from './slots.js';

/** After the candidate exits, how long a process it left holding its pipes may keep them. */
const DRAIN_MS = 500;

/** @typedef {import('./result.js').RunResult} RunResult */

export class SubprocBackend {
  /**
   * @param {object} options
   * @param {import('../python.js').Workspace} options.workspace
   * @param {string} options.needle the message that makes a run interesting
   * @param {number} options.timeoutMs
   * @param {number} options.jobs
   * @param {NodeJS.ProcessEnv} [options.env] the runs' environment (default: each job's
   *   of the workspace, with the reduction's hash seed and the job's GPU)
   * @param {(slot: number) => import('../python.js').SandboxConfig | null} [options.sandbox]
   *   the isolation of job `slot`'s runs (default: the workspace's)
   * @param {string} [options.cwd] the runs' working directory (default: the workspace's)
   * @param {string} [options.program] unisolated, run this file (which the caller keeps
   *   holding the program) instead of the workspace's copy
   * @param {import('../launcher.js').Launcher} [options.launcher] run each program through
   *   it, on the other side (`--launcher`): the template prefixes the command
   * @param {number} [options.job] with one job, use the workspace's files of this job
   *   (default 0): a backend for one run beside others
   */
  constructor({ workspace, needle, timeoutMs, jobs, env, sandbox, cwd, program, launcher, job = 0 }) {
    this.name = 'subproc';
    this.workspace = workspace;
    this.launcher = launcher;
    this.env = env;
    this.sandbox = sandbox ?? ((/** @type {number} */ slot) => workspace.sandbox(slot));
    this.cwd = cwd;
    this.program = program;
    this.needle = Buffer.from(needle, 'utf8');
    this.timeoutMs = timeoutMs;
    /** The timeout it was made with: `limitTimeout` never goes above it. */
    this.maxTimeoutMs = timeoutMs;
    this.slots = new Slots(jobs);
    /** The first of the workspace's jobs whose files this backend's slots use. */
    this.firstJob = job;
    /** Process groups running now, killed by close(). */
    this.running = new Set();
  }

  /**
   * Sets the per-candidate time limit, never above the timeout it was made with.
   * @param {number} ms
   */
  limitTimeout(ms) {
    this.timeoutMs = Math.min(this.maxTimeoutMs, ms);
  }

  /**
   * Runs one program.
   * @param {string} source
   * @param {{ signal?: AbortSignal }} [options] aborting kills the run (outcome `cancelled`)
   * @returns {Promise<RunResult>}
   */
  async run(source, { signal } = {}) {
    const acquired = await this.slots.acquire();
    const slot = this.firstJob + acquired;
    try {
      const env = this.env ?? this.workspace.jobEnvs[slot];
      if (this.launcher) {
        // Nothing is written here: the program travels on the launcher's stdin.
        const remote = {
          argv: this.launcher.argv(slot, env, this.workspace.devices !== null, 'autodd-remote-run'),
          header: this.launcher.runHeader(path.basename(this.workspace.file(slot)), source),
        };
        return await this.spawn('', signal, null, this.workspace.cwd, env, remote);
      }
      const file = this.workspace.write(slot, source);
      return await this.spawn(file, signal, this.sandbox(slot), this.cwd ?? this.workspace.runCwd(slot), env);
    } finally {
      this.slots.release(acquired);
    }
  }

  /**
   * @param {string} file
   * @param {AbortSignal | undefined} signal
   * @param {import('../python.js').SandboxConfig | null} sandbox
   * @param {string} cwd
   * @param {NodeJS.ProcessEnv} env
   * @param {{ argv: string[], header: string }} [remote] run through the launcher: its
   *   command, and what it reads first (the program among it)
   * @returns {Promise<RunResult>}
   */
  spawn(file, signal, sandbox, cwd, env, remote) {
    const start = performance.now();
    const out = new OutputScan(this.needle);
    const err = new OutputScan(this.needle);
    return new Promise((resolve) => {
      if (signal?.aborted) {
        resolve(runResult({ outcome: 'cancelled', ms: 0 }));
        return;
      }
      const python = this.workspace.python;
      // Isolated: a launcher sets up the candidate's own view, puts the candidate at
      // the program's path in it, and then becomes `python3 PROGRAM`.
      const argv = sandbox
        ? ['-I', '-S', SANDBOX_PY, JSON.stringify(sandbox), file, python, sandbox.runAs ?? file]
        : [this.program ?? file];
      const input = remote
        ? 'pipe'
        : this.workspace.stdin
          ? fs.openSync(this.workspace.stdin, 'r')
          : 'ignore';
      const child = remote
        ? spawn(remote.argv[0], remote.argv.slice(1), {
            cwd,
            env,
            detached: true,
            stdio: ['pipe', 'pipe', 'pipe'],
          })
        : spawn(python, argv, { cwd, env, detached: true, stdio: [input, 'pipe', 'pipe'] });
      if (typeof input === 'number') fs.closeSync(input);
      if (remote) {
        // Left open: the other side kills the run when it reads the end (a timeout
        // here kills the launcher, which closes it).
        child.stdin?.on('error', () => {});
        child.stdin?.write(remote.header);
      }
      const pgid = child.pid;
      if (pgid) this.running.add(pgid);
      trackGroup(pgid);
      /** @type {'timeout' | 'cancelled' | undefined} */
      let killed;
      /** @type {{ code: number | null, signal: NodeJS.Signals | null } | undefined} */
      let status;
      /** @type {string | undefined} */
      let error;
      let settled = false;
      const kill = (/** @type {'timeout' | 'cancelled'} */ why) => {
        if (status || killed) return;
        killed = why;
        killGroup(pgid);
      };
      const onAbort = () => kill('cancelled');
      const timer = setTimeout(() => kill('timeout'), this.timeoutMs);
      /** @type {NodeJS.Timeout | undefined} */
      let drainTimer;
      signal?.addEventListener('abort', onAbort, { once: true });

      const finish = () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        clearTimeout(drainTimer);
        signal?.removeEventListener('abort', onAbort);
        if (pgid) this.running.delete(pgid);
        untrackGroup(pgid);
        child.stdin?.destroy();
        child.stdout?.destroy();
        child.stderr?.destroy();
        const ms = performance.now() - start;
        out.end();
        err.end();
        const common = { ms, stdoutTail: out.text(), stderrTail: err.text() };
        if (error) {
          resolve(runResult({ ...common, outcome: 'crashed', error }));
        } else if (killed) {
          resolve(runResult({ ...common, outcome: killed }));
        } else {
          resolve(
            runResult({
              ...common,
              found: out.found || err.found,
              foundAnywhere: out.anywhere.found || err.anywhere.found,
              exception: err.exception ?? out.exception,
              msgLine: err.msgLine ?? out.msgLine,
              outcome: status?.signal ? 'signaled' : 'exited',
              exitCode: status?.code ?? null,
              signal: status?.signal ?? null,
            }),
          );
        }
      };

      child.stdout?.on('data', (chunk) => out.feed(chunk));
      child.stderr?.on('data', (chunk) => err.feed(chunk));
      child.on('error', (e) => {
        error = `cannot run ${this.workspace.python}: ${e.message}`;
        finish();
      });
      child.on('exit', (code, sig) => {
        status = { code, signal: sig };
        // Whatever the candidate left running in its group goes too.
        killGroup(pgid);
        drainTimer = setTimeout(finish, DRAIN_MS);
      });
      child.on('close', finish);
    });
  }

  /** Kills every run in progress. */
  async close() {
    for (const pgid of this.running) killGroup(pgid);
    this.running.clear();
  }
}
