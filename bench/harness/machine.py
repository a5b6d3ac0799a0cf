"""What the benchmark ran on."""

import os
import platform
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent


def describe(python) -> dict:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {
        "cores": os.cpu_count(),
        "cpu": cpu,
        "os": f"{platform.system()} {platform.release()}",
        "python": _version([str(python), "--version"]),
        "node": _version(["node", "--version"]),
    }


def busy_seconds():
    """CPU time the whole machine has spent busy since boot (user, system, interrupts;
    not idle or waiting on I/O), from /proc/stat; None where there is none. Workers
    and candidates a run leaves unreaped escape RUSAGE_CHILDREN: read this before
    and after the run instead, on a machine that does nothing else meanwhile."""
    try:
        with open("/proc/stat") as f:
            fields = [int(x) for x in f.readline().split()[1:]]
    except (OSError, ValueError):
        return None
    idle, iowait = fields[3], fields[4]
    return (sum(fields[:8]) - idle - iowait) / os.sysconf("SC_CLK_TCK")


def _version(argv) -> str:
    try:
        return subprocess.run(argv, capture_output=True, text=True).stdout.strip()
    except OSError:
        return "unknown"


def without_paths(text: str) -> str:
    """`text` with no folder of this machine in it: paths in the repository made
    relative to it, the home folder (pyenv's interpreters, tracebacks) written `~`."""
    return text.replace(str(ROOT) + "/", "").replace(str(Path.home()), "~")
