"""The interestingness test every peer reducer gets, the same as autodd's oracle:
`python3 FILE` (the benchmark venv's interpreter, first on PATH) within the
per-candidate timeout, interesting when MSG is in its stdout or stderr.

    python3 interesting.py FILE MSG TIMEOUT COUNT_FILE   (exit 0: interesting)

Each call appends one byte to COUNT_FILE (a single O_APPEND write, so parallel
calls never lose one): its size is the peer's number of oracle runs."""

import os
import subprocess
import sys


def interesting(path: str, msg: str, timeout: float, count_file: str) -> bool:
    fd = os.open(count_file, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, b".")
    finally:
        os.close(fd)
    try:
        run = subprocess.run(["python3", path], capture_output=True, timeout=timeout,
                             stdin=subprocess.DEVNULL, cwd=os.path.dirname(os.path.abspath(path)))
    except subprocess.TimeoutExpired:
        return False
    out = run.stdout.decode(errors="replace") + run.stderr.decode(errors="replace")
    return msg in out


if __name__ == "__main__":
    path, msg, timeout, count_file = sys.argv[1:5]
    sys.exit(0 if interesting(path, msg, float(timeout), count_file) else 1)
