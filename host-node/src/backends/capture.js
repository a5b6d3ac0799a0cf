// What both backends keep of a candidate's output: whether MSG occurred, and a
// bounded tail for messages. Nothing else is stored, so endless printing costs
// neither memory nor disk.

/** Bytes of each stream's tail kept for messages. */
export const TAIL_BYTES = 4096;

/** Whether a needle occurs in a stream fed in chunks (it may straddle two). */
export class Finder {
  /** @param {Buffer} needle the message to look for, as UTF-8 bytes */
  constructor(needle) {
    this.needle = needle;
    this.found = false;
    /** The last needle.length - 1 bytes: the needle may straddle two chunks. */
    this.carry = Buffer.alloc(0);
  }

  /**
   * @param {Buffer} chunk
   * @returns {boolean} whether the needle was first found in this chunk
   */
  feed(chunk) {
    if (this.found) return false;
    const data = this.carry.length ? Buffer.concat([this.carry, chunk]) : chunk;
    if (data.includes(this.needle)) {
      this.found = true;
      this.carry = Buffer.alloc(0);
      return true;
    }
    const keep = Math.max(this.needle.length - 1, 0);
    // Copy, so the carry does not pin a large chunk in memory.
    this.carry = Buffer.from(data.subarray(Math.max(data.length - keep, 0)));
    return false;
  }
}

/** A Finder that also keeps the stream's bounded tail, for messages. */
export class Capture extends Finder {
  /** @param {Buffer} needle */
  constructor(needle) {
    super(needle);
    this.tail = Buffer.alloc(0);
  }

  /** @param {Buffer} chunk */
  feed(chunk) {
    const first = super.feed(chunk);
    const start = Math.max(chunk.length - TAIL_BYTES, 0);
    const tail = Buffer.concat([this.tail, chunk.subarray(start)]);
    this.tail = Buffer.from(tail.subarray(Math.max(tail.length - TAIL_BYTES, 0)));
    return first;
  }

  /** The tail as text (invalid UTF-8 replaced). */
  text() {
    return this.tail.toString('utf8');
  }
}

/** Process groups started by this process and possibly still alive. */
const liveGroups = new Set();

/**
 * Remembers a process group so that killAllGroups() can reach it on a hard exit.
 * @param {number | undefined} pgid
 */
export function trackGroup(pgid) {
  if (pgid) liveGroups.add(pgid);
}

/** @param {number | undefined} pgid */
export function untrackGroup(pgid) {
  liveGroups.delete(pgid);
}

/**
 * Functions that give a process group to kill on a hard exit when they are asked (a
 * runner worker's candidate, whose pid the worker keeps in a file).
 * @type {Set<() => number | undefined>}
 */
const groupSources = new Set();

/**
 * Remembers where to find a process group that killAllGroups() must reach.
 * @param {() => number | undefined} source
 */
export function trackGroupSource(source) {
  groupSources.add(source);
}

/** @param {() => number | undefined} source */
export function untrackGroupSource(source) {
  groupSources.delete(source);
}

/** Kills every tracked group: for a second Ctrl-C, or an exit that skipped cleanup. */
export function killAllGroups() {
  for (const source of groupSources) killGroup(source());
  for (const pgid of liveGroups) killGroup(pgid);
  liveGroups.clear();
}

process.on('exit', killAllGroups);

/**
 * How long a launcher has to end what it started elsewhere, after SIGTERM, before its
 * group is killed: srun cancels its step (or its job, still queued) and waits for it.
 */
export const LAUNCHER_GRACE_MS = 3000;

/** @type {WeakMap<import('node:child_process').ChildProcess, Promise<void>>} the launchers being ended */
const ending = new WeakMap();

/**
 * Ends a launcher and its process group. SIGTERM first, so that the launcher can end
 * what it started on the other side: `srun` cancels its step, or its job if it still
 * waits in the queue (killed outright, it leaves the step holding the node's CPUs and
 * GPUs until Slurm notices; the job would even start later), `ssh` closes its session,
 * `kubectl exec` its stream. What is left in the group is killed once the launcher
 * exits, or with it after `graceMs`. A launcher that has exited already is not
 * signalled: its group id may be another's by now.
 * @param {import('node:child_process').ChildProcess} child the launcher, its group's leader
 * @param {number} [graceMs]
 * @returns {Promise<void>} settles once the launcher has exited
 */
export function endLauncher(child, graceMs = LAUNCHER_GRACE_MS) {
  const pgid = child.pid;
  if (!pgid || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  let ended = ending.get(child);
  if (!ended) {
    ended = new Promise((resolve) => {
      const timer = setTimeout(() => killGroup(pgid), graceMs);
      child.once('exit', () => {
        clearTimeout(timer);
        killGroup(pgid);
        resolve();
      });
      try {
        process.kill(-pgid, 'SIGTERM');
      } catch {
        // ESRCH: it is exiting.
      }
    });
    ending.set(child, ended);
  }
  return ended;
}

/**
 * Kills a whole process group. Errors (the group is already gone) are ignored.
 * @param {number | undefined} pgid
 */
export function killGroup(pgid) {
  if (!pgid) return;
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // ESRCH: nothing left in the group.
  }
}
