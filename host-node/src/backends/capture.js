// What both backends keep of a candidate's output: whether MSG occurred, and a
// bounded tail for messages. Nothing else is stored, so endless printing costs
// neither memory nor disk. Also the process groups a hard exit must end.

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';

/** The reaper that a hard exit leaves behind for the launchers' groups. */
const REAPER = fileURLToPath(new URL('reaper.js', import.meta.url));

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

  /** What follows is not contiguous with what came before: no match across the gap. */
  cut() {
    this.carry = Buffer.alloc(0);
  }
}

/** A Finder that also keeps the stream's bounded tail, for messages. */
export class Capture extends Finder {
  /**
   * @param {Buffer} needle
   * @param {number} [tailBytes] how much of the stream's end it keeps
   */
  constructor(needle, tailBytes = TAIL_BYTES) {
    super(needle);
    this.tailBytes = tailBytes;
    this.tail = Buffer.alloc(0);
  }

  /** @param {Buffer} chunk */
  feed(chunk) {
    const first = super.feed(chunk);
    const start = Math.max(chunk.length - this.tailBytes, 0);
    const tail = Buffer.concat([this.tail, chunk.subarray(start)]);
    this.tail = Buffer.from(tail.subarray(Math.max(tail.length - this.tailBytes, 0)));
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
 * Those of them whose leader is a launcher (ssh, srun, kubectl exec), with the leader's
 * start time (see `processStart`), which tells it from a later process given its id.
 * @type {Map<number, string | null>}
 */
const launcherGroups = new Map();

/**
 * Remembers a process group so that killAllGroups() can reach it on a hard exit.
 * @param {number | undefined} pgid
 * @param {boolean} [launcher] whether its leader is a launcher, which is asked to end
 *   first (see `endLauncher`)
 */
export function trackGroup(pgid, launcher = false) {
  if (!pgid) return;
  liveGroups.add(pgid);
  if (launcher) launcherGroups.set(pgid, processStart(pgid));
}

/** @param {number | undefined} pgid */
export function untrackGroup(pgid) {
  if (!pgid) return;
  liveGroups.delete(pgid);
  launcherGroups.delete(pgid);
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

/**
 * Ends every tracked group at once: for a second Ctrl-C, or an exit that skipped
 * cleanup. A launcher's group gets SIGTERM, as in `endLauncher`, so that a queued
 * `srun` still takes its job out of the queue; a detached reaper kills what is left of
 * it after the grace, since this process does not wait. The rest are killed.
 */
export function killAllGroups() {
  for (const source of groupSources) killGroup(source());
  /** @type {{ pgid: number, start: string | null }[]} */
  const asked = [];
  for (const pgid of liveGroups) {
    if (!launcherGroups.has(pgid)) {
      killGroup(pgid);
      continue;
    }
    // Signalled (and later killed by the reaper) only while it is the launcher's.
    const start = launcherGroups.get(pgid) ?? null;
    if (!stillLed(pgid, start)) continue;
    try {
      process.kill(-pgid, 'SIGTERM');
      asked.push({ pgid, start });
    } catch {
      // ESRCH: the group is gone.
    }
  }
  liveGroups.clear();
  launcherGroups.clear();
  if (asked.length === 0) return;
  /** @type {import('node:child_process').ChildProcess | undefined} */
  let reaper;
  try {
    reaper = spawn(process.execPath, [REAPER, String(LAUNCHER_GRACE_MS), JSON.stringify(asked)], {
      cwd: '/',
      detached: true,
      stdio: 'ignore',
    });
    // A failed start (EAGAIN, EMFILE) is reported on a tick that an exit never gets.
    reaper.on('error', () => {});
    reaper.unref();
  } catch {
    // Reported at once (ENOMEM): as below.
  }
  if (reaper?.pid === undefined) {
    // No process to be had: kill them now, as the best left to do.
    for (const { pgid } of asked) killGroup(pgid);
  }
}

/**
 * Whether group `pgid` is still the one a process that started at `start` (see
 * `processStart`; null: unknown) led: that process still leads it, or has exited (an id
 * stays taken while its group has members, so the group left is the same).
 * @param {number} pgid
 * @param {string | null} start
 */
export function stillLed(pgid, start) {
  const now = processStart(pgid);
  return now === null || start === null || now === start;
}

/**
 * When a process started, in clock ticks since boot (`/proc/PID/stat`'s 22nd field),
 * or null where that cannot be read (no such process, no /proc).
 * @param {number} pid
 * @returns {string | null}
 */
export function processStart(pid) {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name (field 2) is in parentheses and may hold spaces.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
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
