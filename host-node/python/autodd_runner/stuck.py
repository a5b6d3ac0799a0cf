"""Telling a candidate that can never go on (every thread waiting with no timeout)
from one that is only slow (Linux: read from /proc)."""

import os
import platform


# Waits that never end by themselves, by syscall number: where the timeout argument is
# and how "no timeout" reads there ("neg": a negative int, "null": a NULL pointer,
# "futex": a FUTEX_WAIT or FUTEX_WAIT_BITSET with a NULL timeout).
ENDLESS_WAITS = {
    "x86_64": {
        7: ("neg", 2),  # poll
        23: ("null", 4),  # select
        202: ("futex", 3),
        232: ("neg", 3),  # epoll_wait
        270: ("null", 4),  # pselect6
        271: ("null", 2),  # ppoll
        281: ("neg", 3),  # epoll_pwait
        441: ("null", 3),  # epoll_pwait2
    },
    "aarch64": {
        22: ("neg", 3),  # epoll_pwait
        72: ("null", 4),  # pselect6
        73: ("null", 2),  # ppoll
        98: ("futex", 3),
        441: ("null", 3),  # epoll_pwait2
    },
}.get(platform.machine(), {})

# Probes of a stuck-looking candidate, this far apart, before it counts as stuck.
STUCK_PROBES = 2

STUCK_PROBE_SECONDS = 0.01


class Stuck:
    """Whether a candidate can never go on: every thread of its process waits for an
    event with no timeout (an asyncio loop with nothing scheduled, a lock or a queue
    nobody will release), it has no child process that could wake it, and it used no
    CPU between probes. Such a run is killed as "stuck" at once instead of at the time
    limit. Blocking reads, sleeps and pause() are not counted: something may end them.
    Linux only (reads /proc); elsewhere nothing is ever stuck.
    """

    def __init__(self, pid):
        self.tasks = f"/proc/{pid}/task"
        self.streak = 0
        self.cpu = None

    def probe(self):
        """Takes one look; returns True once the candidate counts as stuck."""
        cpu = self.idle_cpu()
        if cpu is None or cpu != self.cpu:
            self.streak = 0 if cpu is None else 1
        else:
            self.streak += 1
        self.cpu = cpu
        return self.streak >= STUCK_PROBES

    def idle_cpu(self):
        """The process's CPU ticks if every thread waits endlessly, else None."""
        if not ENDLESS_WAITS:
            return None
        total = 0
        try:
            for tid in os.listdir(self.tasks):
                base = f"{self.tasks}/{tid}"
                with open(f"{base}/children") as f:
                    if f.read().strip():
                        return None
                with open(f"{base}/syscall") as f:
                    if not endless(f.read().split()):
                        return None
                with open(f"{base}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                total += int(fields[11]) + int(fields[12])  # utime, stime
        except (OSError, ValueError, IndexError):
            return None
        return total


def endless(fields):
    """Whether a /proc/PID/task/TID/syscall line is a wait with no timeout."""
    try:
        wait = ENDLESS_WAITS.get(int(fields[0]))
        if wait is None:
            return False
        kind, index = wait
        value = int(fields[1 + index], 16)
        if kind == "neg":
            return bool(value & 0x80000000)
        if kind == "null":
            return value == 0
        op = int(fields[2], 16) & 0x7F
        return op in (0, 9) and value == 0  # FUTEX_WAIT, FUTEX_WAIT_BITSET
    except (ValueError, IndexError):
        return False
