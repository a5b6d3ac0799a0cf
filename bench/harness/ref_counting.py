"""Runs the reference reducer (`tilelang.autodd`, extracted by bench/run) and counts
its oracle runs (and, in COUNT_FILE.timeouts, those stopped at the time limit).

    python ref_counting.py COUNT_FILE -- SOURCE --err-msg MSG -o OUT [reference options]

Every call of the reference's per-candidate runner (`AsyncPythonRunner.run` for its
`runner` backend, `SubProcRunner.run` for `subproc`) adds one to a counter that is
written to COUNT_FILE after each call, so the count survives the process being killed
at the benchmark's time budget. Everything else is the reference's own `cli_main`.
"""

import os
import sys


def _write(path, value):
    tmp = f"{path}.tmp"
    with open(tmp, "w") as f:
        f.write(str(value))
    os.replace(tmp, path)


def _count_calls(cls, count_file, counter):
    original = cls.run

    async def run(self, code, timeout=5.0):
        counter[0] += 1
        _write(count_file, counter[0])
        out, err, ok = await original(self, code, timeout)
        # Both backends report a run stopped at the time limit this way.
        if err.startswith("TimeoutError: Exceeded"):
            counter[1] += 1
            _write(f"{count_file}.timeouts", counter[1])
        return out, err, ok

    cls.run = run


def main(argv):
    if len(argv) < 2 or argv[1] != "--":
        sys.exit("usage: ref_counting.py COUNT_FILE -- REFERENCE_ARGS...")
    count_file, reference_args = argv[0], argv[2:]
    # Imported here, not at the top: the runner backend's spawned worker re-imports
    # this file as __mp_main__ and must not start a reduction.
    from tilelang import autodd

    counter = [0, 0]  # runs, runs stopped at the time limit
    _write(count_file, 0)
    _write(f"{count_file}.timeouts", 0)
    _count_calls(autodd.AsyncPythonRunner, count_file, counter)
    _count_calls(autodd.SubProcRunner, count_file, counter)
    autodd.cli_main(reference_args)


if __name__ == "__main__":
    main(sys.argv[1:])
