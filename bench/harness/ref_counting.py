"""Runs the reference reducer (`tilelang.autodd`, extracted by bench/run) and counts
its oracle runs.

    python ref_counting.py COUNT_FILE -- SOURCE --err-msg MSG -o OUT [reference options]

Every call of the reference's per-candidate runner (`AsyncPythonRunner.run` for its
`runner` backend, `SubProcRunner.run` for `subproc`) adds one to a counter that is
written to COUNT_FILE after each call, so the count survives the process being killed
at the benchmark's time budget. Everything else is the reference's own `cli_main`.
"""

import os
import sys


def _count_calls(cls, count_file, counter):
    original = cls.run

    async def run(self, code, timeout=5.0):
        counter[0] += 1
        tmp = f"{count_file}.tmp"
        with open(tmp, "w") as f:
            f.write(str(counter[0]))
        os.replace(tmp, count_file)
        return await original(self, code, timeout)

    cls.run = run


def main(argv):
    if len(argv) < 2 or argv[1] != "--":
        sys.exit("usage: ref_counting.py COUNT_FILE -- REFERENCE_ARGS...")
    count_file, reference_args = argv[0], argv[2:]
    # Imported here, not at the top: the runner backend's spawned worker re-imports
    # this file as __mp_main__ and must not start a reduction.
    from tilelang import autodd

    counter = [0]
    with open(count_file, "w") as f:
        f.write("0")
    _count_calls(autodd.AsyncPythonRunner, count_file, counter)
    _count_calls(autodd.SubProcRunner, count_file, counter)
    autodd.cli_main(reference_args)


if __name__ == "__main__":
    main(sys.argv[1:])
