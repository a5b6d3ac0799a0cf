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


def _version(argv) -> str:
    try:
        return subprocess.run(argv, capture_output=True, text=True).stdout.strip()
    except OSError:
        return "unknown"


def without_paths(text: str) -> str:
    """`text` with no folder of this machine in it: paths in the repository made
    relative to it, the home folder (pyenv's interpreters, tracebacks) written `~`."""
    return text.replace(str(ROOT) + "/", "").replace(str(Path.home()), "~")
