"""What a worker does once, before its first candidate: keep to its CPUs, set the
candidates' memory limit, import the program's modules."""

import importlib
import importlib.util
import os
import resource
import sys


def cpu_share(slot, jobs):
    """The CPUs job `slot` of `jobs` keeps to: its own part of the CPUs this process
    may use, so that the jobs' workers, zygotes and candidates do not pile up on one
    CPU while another waits, nor move between CPUs and lose their caches. The
    scheduler places a forked child by load, and with every job forking hundreds of
    short children a second it often put a slot's child beside the other slot's.
    None (use them all) for a single job, more jobs than CPUs, or no affinity API."""
    if jobs < 2 or not hasattr(os, "sched_getaffinity"):
        return None
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < jobs:
        return None
    return cpus[slot * len(cpus) // jobs : (slot + 1) * len(cpus) // jobs]


def keep_to(cpus):
    """Keeps this process, and every process it starts from now on, to `cpus`; the
    CPUs it keeps to (None if it could not)."""
    if not cpus:
        return None
    try:
        os.sched_setaffinity(0, cpus)
    except OSError:
        return None
    return cpus


def limit_data(allowance):
    """The RLIMIT_DATA, (soft, hard), for candidates that may each allocate `allowance`
    bytes more than this process holds (the hard limit stays this process's): a
    candidate whose loop lost its exit and now appends forever gets a MemoryError once
    it has that much, instead of taking the machine's memory until its time limit. RLIMIT_DATA counts the heap and private writable
    mappings (Linux 4.7 on), not address space merely reserved (as GPU runtimes
    reserve it), nor files mapped. Never above a limit this process already has.
    None (no limit) where that is not how the limit counts, or /proc is missing."""
    if not allowance or not sys.platform.startswith("linux"):
        return None
    try:
        with open("/proc/self/statm", "rb") as f:
            data_pages = int(f.read().split()[5])  # data and stack
        limit = data_pages * os.sysconf("SC_PAGE_SIZE") + int(allowance)
        soft, hard = resource.getrlimit(resource.RLIMIT_DATA)
        for cap in (soft, hard):
            if cap != resource.RLIM_INFINITY:
                limit = min(limit, cap)
        return limit, hard
    except (OSError, ValueError, IndexError):
        return None


def preload(modules, program_dir=None):
    """Imports `modules` once, so candidates start with them loaded. A module is left
    for each candidate to import itself when preloading it could change what the
    candidate does: it lives in the program's own folder (the candidate may be the
    one that writes or changes it), or importing it wrote output (a candidate that
    imports it must write that output too). Returns (loaded, failed, skipped)."""
    loaded, failed, skipped = [], [], []
    for name in modules:
        try:
            spec = importlib.util.find_spec(name.partition(".")[0])
        except BaseException:  # noqa: BLE001 - a broken package: left to the candidate
            spec = None
        origin = os.path.realpath(getattr(spec, "origin", None) or "/")
        if program_dir and origin.startswith(os.path.realpath(program_dir).rstrip("/") + "/"):
            skipped.append([name, "in the program's folder"])
            continue
        before = set(sys.modules)
        try:
            with OutputWatch() as watch:
                importlib.import_module(name)
        except BaseException as exc:  # a module may even call sys.exit()
            failed.append([name, f"{type(exc).__name__}: {exc}"])
            continue
        if watch.wrote:
            for added in set(sys.modules) - before:
                del sys.modules[added]
            skipped.append([name, "it writes output when imported"])
        else:
            loaded.append(name)
    return loaded, failed, skipped


class OutputWatch:
    """Whether anything was written to fds 1 and 2 (or sys.stdout, sys.stderr) while
    in the `with` block; what was written is kept out of the worker's own stderr."""

    def __enter__(self):
        self.wrote = False
        self.saved = None
        if hasattr(os, "memfd_create"):
            for stream in (sys.stdout, sys.stderr):
                stream.flush()
            self.sink = os.memfd_create("autodd-preload")
            self.saved = (os.dup(1), os.dup(2))
            os.dup2(self.sink, 1)
            os.dup2(self.sink, 2)
        return self

    def __exit__(self, *exc):
        if self.saved is None:
            return False
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except BaseException:  # noqa: BLE001
                pass
        self.wrote = os.fstat(self.sink).st_size > 0
        os.dup2(self.saved[0], 1)
        os.dup2(self.saved[1], 2)
        for fd in (*self.saved, self.sink):
            os.close(fd)
        return False
