"""Starts the runner backend's worker (the autodd_runner package beside this file)."""

from autodd_runner.worker import main

if __name__ == "__main__":
    main()
