"""Starts the runner backend's worker (the autodd_runner package beside this file)."""

import sys

# What Python imported before this file: what a plain `python3 PROGRAM` has imported
# when the program's folder joins sys.path (see setup.unshadow).
STARTUP = frozenset(sys.modules)

from autodd_runner.worker import main  # noqa: E402

if __name__ == "__main__":
    main(startup=STARTUP)
