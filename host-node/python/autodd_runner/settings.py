"""What the host's "init" request set for this worker, in one object.

Every process of the worker (the worker itself, the zygote, each candidate's
process) reads SETTINGS; only the worker's main() writes it, once, before any of
them is forked.
"""

from dataclasses import dataclass
from typing import Optional, Tuple


@dataclass
class Settings:
    # The RLIMIT_DATA every candidate gets, (soft, hard) (see setup.limit_data);
    # None: no limit.
    data_limit: Optional[Tuple[int, int]] = None
    # The isolation config (see sandbox), or None to run candidates unisolated.
    sandbox: Optional[dict] = None
    # A file fed to each candidate's standard input, else none.
    stdin: Optional[str] = None
    # Fork the next candidate's process while the current one runs, and compile its
    # likely program there (see forkers.Zygote).
    prefork: bool = False
    # The worker's own files a candidate must not inherit (the pid file, the file
    # each candidate's text is written to): closed in every candidate's process.
    private_fds: Tuple[int, ...] = ()
    # Whether this process has isolated itself already (a process forked ahead does
    # it while it waits): state of the process, not a setting of the host's.
    isolated: bool = False


SETTINGS = Settings()
