"""What a worker does once, before its first candidate: keep to its CPUs, set the
candidates' memory limit, import the program's modules, back a large heap with huge
pages."""

import ctypes
import errno
import importlib
import importlib.machinery
import importlib.util
import mmap
import os
import resource
import sys
import time


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


def unshadow(folders, startup):
    """Forgets the modules this worker imported that a file in `folders`, the
    program's, shadows. A plain `python3 PROGRAM` puts the program's folder first on
    sys.path once Python has started, so there `import inspect` gives the program's
    own inspect.py, unless Python imported that module before (`startup`: the
    modules imported before the worker's code), or it is built in or frozen. The
    worker keeps the modules it holds; every import from here on (the program's
    modules' preloading, each candidate's) finds the program's. So no lazy import
    may follow in the worker's own code."""
    if startup is None:
        return
    shadows = set()
    for folder in folders:
        try:
            entries = os.listdir(folder)
        except OSError:
            continue
        for entry in entries:
            name, dot, rest = entry.partition(".")
            if dot and (rest in ("py", "pyc", "so") or (rest.startswith("cpython-") and rest.endswith(".so"))):
                shadows.add(name)
            elif not dot and os.path.isfile(os.path.join(folder, entry, "__init__.py")):
                shadows.add(name)
    for name, module in list(sys.modules.items()):
        top = name.partition(".")[0]
        # The program's own (a preloaded library imported it) stay.
        where = getattr(module, "__file__", None) or ""
        if (
            top in shadows
            and not any(where.startswith(os.path.join(folder, "")) for folder in folders)
            and top not in startup
            and top not in sys.builtin_module_names
            and importlib.machinery.FrozenImporter.find_spec(top) is None
        ):
            del sys.modules[name]


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
        top = name.partition(".")[0]
        # Beside the program: found there only as the candidate runs (the folder is its
        # sys.path[0], not the worker's).
        beside = program_dir and any(
            os.path.exists(os.path.join(program_dir, top + suffix)) for suffix in (".py", "")
        )
        try:
            spec = None if beside else importlib.util.find_spec(top)
        except BaseException:  # noqa: BLE001 - a broken package: left to the candidate
            spec = None
        origin = os.path.realpath(getattr(spec, "origin", None) or "/")
        if beside or (program_dir and origin.startswith(os.path.realpath(program_dir).rstrip("/") + "/")):
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


def warm_up_with(source, name):
    """Runs the user's warm-up program (`--warm-up`), whose source is `source`, once
    in this process, after preloading and before the first fork: what a library
    builds lazily on first use (a first error's backtrace tables, a registry, a JIT's
    caches) is then built once, not again in every candidate's process. It runs as
    a module of its own (`__name__` is "__autodd_warm_up__"), with its output
    discarded. Returns None, or "Type: message" for the exception that stopped it
    (what it did before that stays done)."""
    namespace = {"__name__": "__autodd_warm_up__", "__file__": name}
    try:
        with OutputWatch():
            exec(compile(source, name, "exec", dont_inherit=True), namespace)
    except BaseException as exc:  # noqa: BLE001 - even SystemExit: reported, the worker goes on
        return f"{type(exc).__name__}: {exc}"
    return None


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


# Below this much anonymous memory the worker is not worth collapsing: a bare
# interpreter holds about 3 MiB, and a fork of it costs 0.35 ms in all.
HUGE_PAGES_FROM = 64 << 20
# How long collapsing may take at most (about 2 ms per MiB here), checked after each
# piece of at most HUGE_PAGES_PIECE.
HUGE_PAGES_SECONDS = 2.0
HUGE_PAGES_PIECE = 64 << 20
HUGE_PAGE = 2 << 20
MADV_COLLAPSE = 25  # madvise(2), Linux 6.1 on


def collapse_heap():
    """Backs this process's large anonymous mappings with 2 MiB pages (MADV_COLLAPSE),
    when it holds HUGE_PAGES_FROM or more of such memory; returns the MiB collapsed.

    A fork copies one page-table entry for each 4 KiB page of the parent's heap, and
    the child's exit drops each again: with torch preloaded (some 300 MiB of heap)
    that was most of what a fork and an exit cost. Backed by huge pages, the heap is
    copied and dropped 2 MiB at a time, for less than half the CPU (bench/forks/run).
    A page that a candidate then writes to costs about what it did: the kernel splits
    that huge page in the candidate's page table only and copies the 4 KiB written.
    Collapsing runs once, before the first fork, and nothing a program can see
    changes: the addresses, the bytes and the memory limit stay the same. Where the
    kernel cannot collapse (before 6.1, or THP compiled out), nothing happens."""
    if not sys.platform.startswith("linux"):
        return 0
    try:
        with open("/proc/self/smaps_rollup") as f:
            anonymous = next(int(line.split()[1]) << 10 for line in f if line.startswith("Anonymous:"))
        if anonymous < HUGE_PAGES_FROM:
            return 0
        with open("/proc/self/maps") as f:
            maps = f.read().splitlines()
        madvise = ctypes.CDLL(None, use_errno=True).madvise
        madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
    except (OSError, StopIteration, ValueError, AttributeError):
        return 0
    deadline = time.monotonic() + HUGE_PAGES_SECONDS
    collapsed = 0
    first = True
    try:
        for start, end in dense_blocks(anonymous_ranges(maps), deadline):
            # In pieces, so the deadline holds for a large mapping too, and a piece
            # that fails leaves the count of the others right.
            for piece in range(start, end, HUGE_PAGES_PIECE):
                size = min(HUGE_PAGES_PIECE, end - piece)
                if madvise(piece, size, MADV_COLLAPSE) == 0:
                    collapsed += size
                elif first and ctypes.get_errno() == errno.EINVAL and not can_collapse(madvise):
                    return 0  # no MADV_COLLAPSE here
                first = False
                if time.monotonic() > deadline:
                    return collapsed >> 20
    except OSError:
        pass  # no /proc/self/pagemap: what was collapsed stays so
    return collapsed >> 20


def can_collapse(madvise):
    """Whether this kernel collapses memory at all (MADV_COLLAPSE, Linux 6.1 on): a
    mapping of its own is tried, since EINVAL also answers for a single range that
    cannot be collapsed (one marked MADV_NOHUGEPAGE, say)."""
    size = 2 * HUGE_PAGE
    probe = mmap.mmap(-1, size, flags=mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS)
    try:
        probe.write(b"\1" * size)
        view = ctypes.c_char.from_buffer(probe)
        start = -(-ctypes.addressof(view) // HUGE_PAGE) * HUGE_PAGE
        del view
        return madvise(start, HUGE_PAGE, MADV_COLLAPSE) == 0
    finally:
        probe.close()


def anonymous_ranges(maps):
    """The 2 MiB-aligned parts of the private, writable, anonymous mappings in the
    lines of /proc/self/maps: the heap and what malloc and the libraries' allocators
    mapped. Files and stacks stay as they are."""
    for line in maps:
        fields = line.split()
        if len(fields) > 6 or fields[1][:2] != "rw" or fields[1][3] != "p":
            continue
        if len(fields) == 6 and fields[5] != "[heap]":
            continue
        start, end = (int(x, 16) for x in fields[0].split("-"))
        start = -(-start // HUGE_PAGE) * HUGE_PAGE
        end = end // HUGE_PAGE * HUGE_PAGE
        if end - start >= HUGE_PAGE:
            yield start, end


def dense_blocks(ranges, deadline):
    """The runs of 2 MiB blocks in `ranges` of which at least 3/4 of the 4 KiB pages
    are this process's own, written pages: collapsing fills a block's missing pages
    (and replaces those that only map the shared zero page, having only been read), so
    a sparse mapping (an allocator's reserve) would grow, by at most a quarter of what
    is collapsed here. None after `deadline` (time.monotonic())."""
    page = os.sysconf("SC_PAGE_SIZE")
    per_block = HUGE_PAGE // page
    with open("/proc/self/pagemap", "rb") as f:
        for start, end in ranges:
            if time.monotonic() > deadline:
                return
            f.seek(start // page * 8)
            entries = memoryview(f.read((end - start) // page * 8)).cast("Q")
            run = None
            for i in range(0, len(entries), per_block):
                # Bit 63: present; bit 56: mapped by this process only (before any
                # fork, a page it wrote; a zero page or a file's page is not).
                own = sum(entry >> 63 & entry >> 56 & 1 for entry in entries[i : i + per_block])
                block = start + i * page
                if own * 4 >= per_block * 3:
                    run = (run[0] if run else block, block + HUGE_PAGE)
                elif run:
                    yield run
                    run = None
            if run:
                yield run
