// The subproc backend: a fresh `python3 FILE` per candidate, in its own process
// group so a timeout or a cancel kills everything it started. Through a launcher, each
// candidate is a launch of its own, started ahead while the job's run before it goes
// on; one lost on the way is launched again.

import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { sandboxArgs } from '../python.js';
import { endLauncher, killGroup, trackGroup, untrackGroup } from './capture.js';
import { dropJob, JobWarnings, untilNotLost } from './lost.js';
import { runResult, signalName } from './result.js';
import { OutputScan } from './scan.js';
import { Slots } from './slots.js';

/** After the candidate exits, how long a process it left holding its pipes may keep them. */
const DRAIN_MS = 500;

/**
 * How long a launch started ahead may wait and still be used: a connection idle longer
 * may have been dropped on the way without a word (a NAT's or a firewall's timeout),
 * which a run would only find out at its time limit.
 */
const SPARE_MAX_AGE_MS = 5 * 60_000;

/** How a run ends whose launch was lost on the way (a `crashed` run's error starts so). */
export const LAUNCH_LOST = 'its launch was lost';

/** @typedef {import('./result.js').RunResult} RunResult */
/** @typedef {import('node:child_process').ChildProcess} ChildProcess */

/**
 * How a run through a launcher ended, as the other side says it (python/autodd_boot.py):
 * lines on its stdout, each NUL, `autodd `, the run's nonce and a space, then `start`;
 * `unisolated WHY` or `refused JSON` (the folders it saw read-only), if so; and `end
 * exit N` / `end signal NAME` / `end timeout` with the milliseconds the program ran.
 * Everything else is the program's own output, passed on to `feed`.
 */
export class RemoteStatus {
  /**
   * @param {string} nonce
   * @param {(chunk: Buffer) => void} feed
   */
  constructor(nonce, feed) {
    this.mark = Buffer.from(`\0autodd ${nonce} `);
    this.feed = feed;
    /** The tail held back: the beginning of a mark, or a mark's line not yet ended. */
    this.pending = Buffer.alloc(0);
    this.started = false;
    /** @type {{ how: string, value: string, ms: number } | undefined} */
    this.end = undefined;
    /** @type {string | undefined} why the program ran unisolated there, if it was to be isolated */
    this.unisolated = undefined;
    /** @type {string[]} the folders the program saw read-only there (no overlay) */
    this.refused = [];
  }

  /** @param {Buffer} chunk */
  push(chunk) {
    if (this.end) return; // after it: nothing the program wrote
    let data = this.pending.length ? Buffer.concat([this.pending, chunk]) : chunk;
    for (let at = data.indexOf(this.mark); at >= 0; at = data.indexOf(this.mark)) {
      const eol = data.indexOf(10, at + this.mark.length);
      if (eol < 0) break;
      if (at > 0) this.feed(data.subarray(0, at));
      this.line(data.subarray(at + this.mark.length, eol).toString());
      data = data.subarray(eol + 1);
      if (this.end) return;
    }
    const at = data.indexOf(this.mark);
    const keep = at >= 0 ? data.length - at : this.markBegun(data);
    if (data.length > keep) this.feed(data.subarray(0, data.length - keep));
    this.pending = Buffer.from(data.subarray(data.length - keep));
  }

  /**
   * How many of `data`'s last bytes are the beginning of a mark.
   * @param {Buffer} data
   */
  markBegun(data) {
    for (let i = Math.max(0, data.length - this.mark.length + 1); i < data.length; i++) {
      if (data[i] === 0 && data.subarray(i).equals(this.mark.subarray(0, data.length - i)))
        return data.length - i;
    }
    return 0;
  }

  /** The stream ended: what was held back was the program's. */
  close() {
    if (!this.end && this.pending.length) this.feed(this.pending);
    this.pending = Buffer.alloc(0);
  }

  /** @param {string} text */
  line(text) {
    const words = text.split(' ');
    if (words[0] === 'start') this.started = true;
    else if (words[0] === 'unisolated') this.unisolated = words.slice(1).join(' ');
    else if (words[0] === 'refused') this.refused = refusedList(words.slice(1).join(' '));
    else if (words[0] === 'end' && words.length >= 3) {
      const how = words[1];
      this.end = { how, value: how === 'timeout' ? '' : words[2], ms: Number(words.at(-1)) };
    }
  }
}

/**
 * The folders of a `refused` line: a JSON list of paths (none, if it is not one).
 * @param {string} text
 * @returns {string[]}
 */
function refusedList(text) {
  try {
    const list = JSON.parse(text);
    return Array.isArray(list) ? list.map(String) : [];
  } catch {
    return [];
  }
}

/**
 * The warning for job `slot`'s runs on the other side of a launcher, if they were not
 * isolated there as they are here: unisolated (and why), or seeing folders read-only.
 * @param {number} slot
 * @param {string | undefined} host
 * @param {string | undefined} unisolated why its runs ran unisolated
 * @param {string[] | undefined} refused the folders its runs saw read-only
 * @param {string} [what] what ran there
 */
export function isolationThere(slot, host, unisolated, refused, what = 'runs') {
  const where = host ? ` on ${host}` : '';
  if (unisolated) {
    const verb = what === 'runs' ? 'are' : 'run';
    return `job ${slot + 1}'s ${what} ${verb} unisolated${where} (${unisolated}): they can change the files of the machine they run on`;
  }
  if (refused?.length) {
    return (
      `job ${slot + 1}'s ${what} see ${refused.join(', ')} read-only${where}: a mount inside cannot be overlaid, ` +
      'so a program that writes there fails as it would on a read-only disk'
    );
  }
  return undefined;
}

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
   * @param {number} [options.launchMs] through a launcher: how long a launch may take
   *   beyond the program's time limit, which the other side keeps (default `timeoutMs`)
   * @param {number} [options.job] with one job, use the workspace's files of this job
   *   (default 0): a backend for one run beside others
   * @param {(message: string) => void} [options.onWarning]
   * @param {boolean} [options.isolateThere] through a launcher: isolate each run on the
   *   other side where its kernel allows (default true; a job where it does not is warned of)
   * @param {Set<number>} [options.warnedIsolation] the jobs already warned of how their
   *   runs are isolated there (shared with another backend of the same reduction)
   * @param {boolean} [options.stopWhenLost] through a launcher, when the last job's runs
   *   cannot be launched any more: stop the reduction (`workers-lost`; the default), or
   *   give the run that crash (a final check, which may try another host)
   * @param {boolean} [options.prelaunch] through a launcher: when a job's run starts,
   *   start the launch of its next run too, which waits for its program meanwhile (the
   *   other side reads it first), so a connection's or an allocation's start is not
   *   waited for (default false: a backend for one run would waste it)
   */
  constructor({
    workspace,
    needle,
    timeoutMs,
    jobs,
    env,
    sandbox,
    cwd,
    program,
    launcher,
    launchMs,
    job = 0,
    onWarning,
    stopWhenLost = true,
    prelaunch = false,
    isolateThere = true,
    warnedIsolation = new Set(),
  }) {
    this.name = 'subproc';
    this.workspace = workspace;
    this.launcher = launcher;
    this.launchMs = launchMs ?? timeoutMs;
    this.onWarning = onWarning ?? (() => {});
    this.stopWhenLost = stopWhenLost;
    this.isolateThere = isolateThere;
    /** @type {Set<number>} jobs told how their runs are isolated on the other side */
    this.warnedIsolation = warnedIsolation;
    /** @type {Set<number>} through a launcher: jobs whose runs ran unisolated there */
    this.unisolatedJobs = new Set();
    /** Launches made again because one was lost on the way. */
    this.restarts = 0;
    /** @type {Set<number>} jobs whose runs could not be launched any more: given no more runs */
    this.dropped = new Set();
    /** Whether any launch got as far as starting its program. */
    this.everLaunched = false;
    /** The warnings about jobs dropped, held until a launch started its program. */
    this.jobWarnings = new JobWarnings(this.onWarning);
    this.closed = false;
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
    /** @type {Map<number, ChildProcess>} runs and launches going now, by process group: close() ends them */
    this.running = new Map();
    this.prelaunch = prelaunch;
    /** @type {Map<number, { argv: string[], child: ChildProcess, since: number }>} each job's next launch, started ahead */
    this.spares = new Map();
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
   * @param {{ signal?: AbortSignal, ahead?: boolean }} [options] aborting `signal` kills
   *   the run (outcome `cancelled`); `ahead` false: no run of this job follows, so with
   *   `prelaunch` no launch starts ahead for one
   * @returns {Promise<RunResult>}
   */
  async run(source, { signal, ahead = true } = {}) {
    for (;;) {
      const acquired = await this.slots.acquire();
      const slot = this.firstJob + acquired;
      let dropped = false;
      try {
        if (signal?.aborted || this.closed) return runResult({ outcome: 'cancelled', ms: 0 });
        const env = this.env ?? this.workspace.jobEnvs[slot];
        if (!this.launcher) {
          const file = this.workspace.write(slot, source);
          const cwd = this.cwd ?? this.workspace.runCwd(slot);
          return (await this.spawn(file, signal, this.sandbox(slot), cwd, env)).result;
        }
        const { launcher } = this;
        // A launch lost on the way (its connection dropped, its host rebooted) is made
        // again, so the search is the one a run without the fault makes.
        const { result, jobLost } = await untilNotLost(
          async (retry) => {
            const nonce = randomBytes(16).toString('hex');
            // Nothing is written here: the program travels on the launcher's stdin.
            const remote = {
              argv: launcher.argv(slot, env, this.workspace.devices !== null, 'autodd-remote-run'),
              header: launcher.runHeader(path.basename(this.workspace.file(slot)), source, {
                nonce,
                timeoutMs: this.timeoutMs,
                isolate: this.isolateThere,
              }),
              nonce,
            };
            // After a lost launch, a new one after the back-off, and none ahead until one
            // is not lost: the host may be gone, and the launch made ahead with the lost
            // one may have met the same fault.
            if (retry > 0) this.dropSpare(slot);
            const child = this.takeLaunch(slot, remote.argv, env, ahead && retry === 0);
            const run = await this.spawn('', signal, null, this.workspace.cwd, env, { ...remote, child });
            if (!run.lost || run.lost.started) {
              this.everLaunched = true;
              this.jobWarnings.release();
            }
            return run;
          },
          { signal, closed: () => this.closed, onRetry: () => (this.restarts += 1) },
        );
        const there = isolationThere(slot, launcher.host(slot), result.unisolatedThere, result.refusedThere);
        if (result.unisolatedThere) this.unisolatedJobs.add(slot);
        if (there && !this.warnedIsolation.has(slot)) {
          this.warnedIsolation.add(slot);
          this.onWarning(there);
        }
        if (!jobLost || !this.stopWhenLost) return result;
        const why = `its runs could not be launched any more (${result.error})`;
        dropped = dropJob(this, this.everLaunched, slot, why);
        if (!dropped) return result;
        this.dropSpare(slot);
      } finally {
        if (!dropped) this.slots.release(acquired);
      }
    }
  }

  /**
   * The launch for job `slot`'s run: the one started ahead if it still waits, else a new
   * one. With `prelaunch` and `ahead`, the launch of the job's next run starts now.
   * @param {number} slot
   * @param {string[]} argv
   * @param {NodeJS.ProcessEnv} env
   * @param {boolean} ahead
   * @returns {ChildProcess}
   */
  takeLaunch(slot, argv, env, ahead) {
    const spare = this.spares.get(slot);
    this.spares.delete(slot);
    const waiting =
      spare !== undefined &&
      spare.child.pid !== undefined &&
      spare.child.exitCode === null &&
      spare.child.signalCode === null &&
      performance.now() - spare.since < SPARE_MAX_AGE_MS &&
      spare.argv.join('\0') === argv.join('\0');
    // One that ended while it waited (its connection dropped), or never started, is
    // not used: its run would be lost before it started. Nor is one that waited long.
    if (spare && !waiting) this.endLaunch(spare.child);
    const child = waiting ? spare.child : this.launch(argv, env);
    if (this.prelaunch && ahead && !this.closed)
      this.spares.set(slot, { argv, child: this.launch(argv, env), since: performance.now() });
    return child;
  }

  /**
   * With `prelaunch`, starts the launch of the next run now, to wait for its program
   * however long that takes (the final check's first run, while the reduction goes on).
   */
  launchEarly() {
    const slot = this.firstJob;
    if (!this.launcher || !this.prelaunch || this.closed || this.spares.has(slot)) return;
    const env = this.env ?? this.workspace.jobEnvs[slot];
    const argv = this.launcher.argv(slot, env, this.workspace.devices !== null, 'autodd-remote-run');
    this.spares.set(slot, { argv, child: this.launch(argv, env), since: performance.now() });
  }

  /**
   * Starts a launch, in a process group of its own; the other side waits for what it is
   * to run on its stdin, and ends, having made nothing, if stdin closes first.
   * @param {string[]} argv
   * @param {NodeJS.ProcessEnv} env
   * @returns {ChildProcess}
   */
  launch(argv, env) {
    const child = spawn(argv[0], argv.slice(1), {
      cwd: this.workspace.cwd,
      env,
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    // Seen by `spawn` when it runs something; until then, no error may go unheard.
    child.on('error', () => {});
    // One that ends while it waits (its connection dropped) is ended at once, and
    // forgotten: its process group id may be another's later.
    child.once('exit', () => {
      if ([...this.spares.values()].some((spare) => spare.child === child)) {
        killGroup(child.pid);
        this.forget(child);
      }
    });
    // Left open: the other side kills the run when it reads the end (a timeout here
    // kills the launcher, which closes it).
    child.stdin?.on('error', () => {});
    this.track(child, true);
    return child;
  }

  /**
   * Ends a launch (see `endLauncher`), and all it started.
   * @param {ChildProcess} child
   * @returns {Promise<void>} settles once the launcher has exited
   */
  endLaunch(child) {
    return endLauncher(child).finally(() => this.forget(child));
  }

  /**
   * Tracks a run's process group: close() kills it, and so does a hard exit.
   * @param {ChildProcess} child
   * @param {boolean} [launcher] whether it is a launch, which a hard exit asks to end
   */
  track(child, launcher = false) {
    if (child.pid) this.running.set(child.pid, child);
    trackGroup(child.pid, launcher);
  }

  /**
   * Stops tracking a run's process group.
   * @param {ChildProcess} child
   */
  forget(child) {
    if (child.pid) this.running.delete(child.pid);
    untrackGroup(child.pid);
  }

  /**
   * Ends job `slot`'s launch started ahead, if it has one (the job was dropped).
   * @param {number} slot
   */
  dropSpare(slot) {
    const spare = this.spares.get(slot);
    this.spares.delete(slot);
    if (spare) this.endLaunch(spare.child);
  }

  /**
   * @param {string} file
   * @param {AbortSignal | undefined} signal
   * @param {import('../python.js').SandboxConfig | null} sandbox
   * @param {string} cwd
   * @param {NodeJS.ProcessEnv} env
   * @param {{ argv: string[], header: string, nonce: string, child: ChildProcess }} [remote]
   *   run through the launcher: its command, what it reads first (the program among it),
   *   the nonce of the lines that say how the program ended there (see `RemoteStatus`),
   *   and the launch, started (`launch`), that waits for it
   * @returns {Promise<{ result: RunResult, lost?: { started: boolean } }>} `lost`: the
   *   launch ended without saying how the program did (`result` tells what was seen)
   */
  spawn(file, signal, sandbox, cwd, env, remote) {
    const start = performance.now();
    const out = new OutputScan(this.needle);
    const err = new OutputScan(this.needle);
    return new Promise((resolve) => {
      if (signal?.aborted) {
        if (remote) this.endLaunch(remote.child);
        resolve({ result: runResult({ outcome: 'cancelled', ms: 0 }) });
        return;
      }
      const status = remote ? new RemoteStatus(remote.nonce, (chunk) => out.feed(chunk)) : undefined;
      const python = this.workspace.python;
      // Isolated: a launcher sets up the candidate's own view, puts the candidate at
      // the program's path in it, and then becomes `python3 PROGRAM`.
      // Unisolated (on Linux), it closes the descriptors the invoking process left
      // open, runs `python3 PROGRAM`, and kills what the program leaves running.
      const argv = sandbox
        ? sandboxArgs(JSON.stringify(sandbox), file, python, sandbox.runAs ?? file)
        : process.platform === 'linux'
          ? sandboxArgs('--reap', python, this.program ?? file)
          : [this.program ?? file];
      const input = remote
        ? 'pipe'
        : this.workspace.stdin
          ? fs.openSync(this.workspace.stdin, 'r')
          : 'ignore';
      const child = remote
        ? remote.child
        : spawn(python, argv, { cwd, env, detached: true, stdio: [input, 'pipe', 'pipe'] });
      if (typeof input === 'number') fs.closeSync(input);
      if (remote) child.stdin?.write(remote.header);
      const pgid = child.pid;
      // A launch is tracked from its start (`launch`).
      if (!remote) this.track(child);
      /** @type {'timeout' | 'cancelled' | undefined} */
      let killed;
      /** @type {{ code: number | null, signal: NodeJS.Signals | null } | undefined} */
      let exit;
      /** @type {string | undefined} */
      let error;
      let settled = false;
      /** @type {Promise<void> | undefined} the launch being ended, which forgets it once it exits */
      let ending;
      const kill = (/** @type {'timeout' | 'cancelled'} */ why) => {
        if (exit || killed) return;
        killed = why;
        if (remote) endLauncher(child);
        else killGroup(pgid);
      };
      const onAbort = () => kill('cancelled');
      // Through a launcher the other side keeps the time limit; this one, later, ends a
      // launch that hangs (a stalled connection, a queue that does not start it).
      const timer = setTimeout(() => kill('timeout'), this.timeoutMs + (remote ? this.launchMs : 0));
      /** @type {NodeJS.Timeout | undefined} */
      let drainTimer;
      signal?.addEventListener('abort', onAbort, { once: true });

      const finish = () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        clearTimeout(drainTimer);
        signal?.removeEventListener('abort', onAbort);
        if (!ending) this.forget(child);
        child.stdin?.destroy();
        child.stdout?.destroy();
        child.stderr?.destroy();
        const ms = performance.now() - start;
        status?.close();
        out.end();
        err.end();
        const common = {
          ms,
          stdoutTail: out.text(),
          stderrTail: err.text(),
          ...(status?.unisolated ? { unisolatedThere: status.unisolated } : {}),
          ...(status?.refused.length ? { refusedThere: status.refused } : {}),
        };
        const seen = {
          found: out.found || err.found,
          foundAnywhere: out.anywhere.found || err.anywhere.found,
          exception: err.exception ?? out.exception,
          msgLine: err.msgLine ?? out.msgLine,
        };
        if (error) {
          resolve({ result: runResult({ ...common, outcome: 'crashed', error }) });
        } else if (killed === 'cancelled' || (killed && !status)) {
          resolve({ result: runResult({ ...common, outcome: killed }) });
        } else if (status?.end) {
          // How it ended there, and how long it ran there, the launch not counted.
          const { how, value, ms: remoteMs } = status.end;
          const number = Number(value);
          const fields =
            how === 'exit'
              ? { outcome: /** @type {const} */ ('exited'), exitCode: number }
              : how === 'signal'
                ? {
                    outcome: /** @type {const} */ ('signaled'),
                    signal: Number.isNaN(number) ? value : signalName(number),
                  }
                : { outcome: /** @type {const} */ ('timeout') };
          resolve({ result: runResult({ ...common, ...seen, ...fields, ms: remoteMs }) });
        } else if (status) {
          // The launcher ended, or hung, before the other side said how the program did.
          const lastLine = err.text().trim().split('\n').at(-1);
          const said = lastLine && this.launcher ? this.launcher.brief(lastLine) : lastLine;
          const within = `within ${Math.round((this.timeoutMs + this.launchMs) / 1000)} s`;
          const how = !killed
            ? describeExit(exit)
            : status.started
              ? `no end from the other side ${within}`
              : `the launcher did not start it ${within}`;
          const when = status.started ? 'while the program ran' : 'before the program started';
          const error = `${LAUNCH_LOST} ${when} (${how}${said ? `; last line on stderr: ${said}` : ''})`;
          resolve({
            result: runResult({ ...common, outcome: 'crashed', error, unstarted: !status.started }),
            lost: { started: status.started },
          });
        } else {
          resolve({
            result: runResult({
              ...common,
              ...seen,
              outcome: exit?.signal ? 'signaled' : 'exited',
              exitCode: exit?.code ?? null,
              signal: exit?.signal ?? null,
            }),
          });
        }
      };

      child.stdout?.on('data', (chunk) => {
        if (!status) return out.feed(chunk);
        const ended = status.end;
        status.push(chunk);
        // Said how it ended: a process it left holding the connection is not waited for.
        if (!ended && status.end) {
          clearTimeout(drainTimer);
          drainTimer = setTimeout(() => {
            // Tracked until it has exited: close() waits for it.
            ending = this.endLaunch(child);
            finish();
          }, DRAIN_MS);
        }
      });
      child.stderr?.on('data', (chunk) => err.feed(chunk));
      child.on('error', (e) => {
        error = `cannot run ${remote ? remote.argv[0] : this.workspace.python}: ${e.message}`;
        finish();
      });
      child.on('exit', (code, sig) => {
        exit = { code, signal: sig };
        // Whatever the candidate left running in its group goes too.
        killGroup(pgid);
        clearTimeout(drainTimer);
        drainTimer = setTimeout(finish, DRAIN_MS);
      });
      child.on('close', finish);
    });
  }

  /** Kills every run in progress; through a launcher, waits for the launches to end. */
  async close() {
    this.closed = true;
    this.spares.clear();
    const children = [...this.running.values()];
    this.running.clear();
    if (!this.launcher) {
      for (const child of children) killGroup(child.pid);
      return;
    }
    await Promise.all(children.map((child) => this.endLaunch(child)));
  }
}

/**
 * @param {{ code: number | null, signal: NodeJS.Signals | null } | undefined} exit
 */
function describeExit(exit) {
  return exit?.signal
    ? `the launcher was killed by ${exit.signal}`
    : `the launcher's exit status ${exit?.code}`;
}
