"""Runs pysource-minimize (its `minimize(source, checker)` API) with the benchmark's
interestingness test (interesting.py), and keeps OUT holding the smallest
interesting program seen, so a run stopped at the budget still leaves its best.

    python3 pysource_minimize_driver.py SOURCE MSG TIMEOUT OUT COUNT_FILE"""

import os
import sys
import tempfile

from pysource_minimize import minimize

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from interesting import interesting  # noqa: E402


def main(source_path, msg, timeout, out, count_file):
    source = open(source_path).read()
    best = [source]
    folder = tempfile.mkdtemp(prefix="pysource-minimize-")
    candidate = os.path.join(folder, os.path.basename(source_path))

    def write(path, text):
        with open(path + ".tmp", "w") as f:
            f.write(text)
        os.replace(path + ".tmp", path)

    def checker(text):
        write(candidate, text)
        found = interesting(candidate, msg, timeout, count_file)
        if found and len(text) < len(best[0]):
            best[0] = text
            write(out, text)
        return found

    write(out, source)
    write(out, minimize(source, checker))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4], sys.argv[5])
