// Left behind, detached, by a hard exit of autodd (a second Ctrl-C): the launchers'
// process groups were sent SIGTERM so that each could end what it started elsewhere
// (a queued `srun` takes its job out of the queue); whatever of them is still there
// after the grace is killed.
//
//   node reaper.js GRACE_MS '[{"pgid": 123, "start": "4567"}, ...]'
//
// `start` is the group leader's start time as /proc gave it when the signal was sent
// (null if unknown): a group whose leader has since been replaced by another process
// with the same id is not the launcher's any more and is left alone.

import { stillLed } from './capture.js';

const POLL_MS = 50;

/**
 * Whether the group `pgid` still has a process in it.
 * @param {number} pgid
 */
function alive(pgid) {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (err) {
    // EPERM: a process is there, another user's (the id was reused).
    return /** @type {NodeJS.ErrnoException} */ (err).code === 'EPERM';
  }
}

const graceMs = Number(process.argv[2]);
/** @type {{ pgid: number, start: string | null }[]} */
let groups = JSON.parse(process.argv[3] ?? '[]');
const deadline = Date.now() + (Number.isFinite(graceMs) ? graceMs : 0);
const timer = setInterval(() => {
  groups = groups.filter(({ pgid, start }) => alive(pgid) && stillLed(pgid, start));
  if (groups.length > 0 && Date.now() < deadline) return;
  clearInterval(timer);
  for (const { pgid } of groups) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // ESRCH: it ended just now.
    }
  }
}, POLL_MS);
