"""Isolation of candidates from the user's files (Linux; no root needed).

A process that `enter`s gets a user namespace and a mount namespace of its own in
which the whole file system is read-only. A process that then `isolate`s (a
candidate, just before it runs) gets a mount namespace of its own on top, with a
fresh tmpfs for its scratch space, and a copy-on-write overlay over each folder it
may write to (the program's folder, the working directory, the home folder, /tmp
and /var/tmp; /dev/shm is an empty tmpfs). What it writes lands in the overlays'
upper layers, in that tmpfs, and is gone when the process and its children exit:
no candidate can change a file outside, and none sees what another left.

The candidate's text is placed at the program's own path inside its overlay, so it
runs as `python3 SOURCE` would: the same `__file__`, `sys.argv[0]` and
`sys.path[0]`, the files beside it at the same relative paths, and tracebacks
quoting its own lines.

The runner's worker imports this module (`enter` once at start, `isolate` in each
candidate's process). The subproc backend runs it as a launcher:

    python3 -I -S autodd_runner/sandbox.py CONFIG FILE PYTHON [ARG ...]

which enters, isolates, puts FILE's text at the program's path and runs
`PYTHON ARG ...` in a PID namespace of its own (see `launch`). `--reap PYTHON ARG ...`
runs an unisolated run: it closes the descriptors the invoking process left open,
and kills whatever the program leaves running (see `run_reaped`). `--probe CONFIG` says
whether isolation works here: it prints the JSON list of the folders it cannot overlay
and exits 0, or prints why not and exits 1.

CONFIG is JSON: {"scratch": DIR (an empty folder to mount the tmpfs on),
"writable": [DIR, ...], "runAs": PATH or null (where the candidate's text goes),
"cwd": DIR}.
"""

import ctypes
import errno
import os
import signal
import sys
import time

# json is imported where it is used: the reaper of an unisolated run (`--reap`) starts
# sooner without it.

CLONE_NEWNS = 0x00020000
CLONE_NEWPID = 0x20000000
CLONE_NEWUSER = 0x10000000
MS_RDONLY = 0x1
MS_NOSUID = 0x2
MS_NODEV = 0x4
MS_NOEXEC = 0x8
MS_REC = 0x4000
MS_PRIVATE = 0x40000
AT_FDCWD = -100
PR_SET_SECUREBITS = 28
SECBIT_NOROOT = 0x1
SECBIT_NOROOT_LOCKED = 0x2
PR_SET_PDEATHSIG = 1
PR_SET_CHILD_SUBREAPER = 36
PR_SET_DUMPABLE = 4
PR_CAPBSET_DROP = 24
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_RAISE = 2
LINUX_CAPABILITY_VERSION_3 = 0x20080522
CAP_SETGID = 6
CAP_SETUID = 7
CAP_SYS_PTRACE = 19
CAP_SYS_ADMIN = 21
AT_RECURSIVE = 0x8000
MOUNT_ATTR_RDONLY = 0x1
# mount_setattr(2), the same number on every architecture Linux gives it to.
SYS_MOUNT_SETATTR = 442

_libc = None


class MountAttr(ctypes.Structure):
    _fields_ = [
        ("attr_set", ctypes.c_uint64),
        ("attr_clr", ctypes.c_uint64),
        ("propagation", ctypes.c_uint64),
        ("userns_fd", ctypes.c_uint64),
    ]


def libc():
    global _libc
    if _libc is None:
        _libc = ctypes.CDLL(None, use_errno=True)
        # Looked up once here, not in every forked candidate.
        for name in ("unshare", "mount", "prctl", "capset", "syscall"):
            getattr(_libc, name)
    return _libc


def _check(result, what):
    if result != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _mount(source, target, fstype, flags, data=None):
    enc = lambda s: None if s is None else os.fsencode(s)  # noqa: E731
    _check(libc().mount(enc(source), enc(target), enc(fstype), flags, enc(data)), f"mount {target}")


def enter():
    """Makes this process's view of the file system its own and read-only. Must run
    while the process has one thread. The uid and gid stay what they were.

    Run as root (a container, a CI job), every user and group id stays mapped and runs
    keep root's capabilities but those that could undo the isolation (see `_kept`):
    a plain run as root reads a file of mode 000 and writes into a checkout owned by
    another user, and so must a candidate."""
    global _kept
    uid, gid = os.getuid(), os.getgid()
    caps = effective_capabilities()
    _kept = caps & ~_UNDOING
    mapper = None
    if uid == 0 and caps & (1 << CAP_SETUID) and caps & (1 << CAP_SETGID):
        mapper = _IdMapper()
    _check(libc().unshare(CLONE_NEWUSER | CLONE_NEWNS), "unshare")
    if mapper is None or not mapper.map_all():
        _kept = 0  # with one id mapped, capabilities reach almost no file
        with open("/proc/self/setgroups", "w") as f:
            f.write("deny")
        with open("/proc/self/uid_map", "w") as f:
            f.write(f"{uid} {uid} 1")
        with open("/proc/self/gid_map", "w") as f:
            f.write(f"{gid} {gid} 1")
    # Nothing mounted here reaches the user's namespace.
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    attr = MountAttr(MOUNT_ATTR_RDONLY, 0, 0, 0)
    lib = libc()
    lib.syscall.restype = ctypes.c_long
    result = lib.syscall(
        ctypes.c_long(SYS_MOUNT_SETATTR),
        ctypes.c_int(AT_FDCWD),
        b"/",
        ctypes.c_uint(AT_RECURSIVE),
        ctypes.byref(attr),
        ctypes.c_size_t(ctypes.sizeof(attr)),
    )
    _check(0 if result == 0 else -1, "mount_setattr")


# The capabilities a run never keeps: mounting (which would undo the overlays and the
# read-only view) and tracing the worker, which may mount.
_UNDOING = (1 << CAP_SYS_ADMIN) | (1 << CAP_SYS_PTRACE)
# Those it keeps: the ones the user's process had, but the above (set by `enter`).
_kept = 0


def effective_capabilities():
    """This process's effective capabilities, as a bit mask."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("CapEff:"):
                    return int(line.split()[1], 16)
    except (OSError, ValueError):
        pass
    return 0


class _IdMapper:
    """Maps every user and group id of this namespace into the one `enter` makes, one
    to one. A process may map more than its own id only from the namespace above (as
    newuidmap(1) does), so a child forked before the unshare writes the maps."""

    def __init__(self):
        self.parent = os.getpid()
        go_r, self.go = os.pipe()
        self.pid = os.fork()
        if self.pid == 0:
            status = 1
            try:
                os.close(self.go)
                if os.read(go_r, 1) == b"1":
                    for name in ("uid_map", "gid_map"):
                        with open(f"/proc/self/{name}") as f:
                            ranges = [line.split() for line in f]
                        lines = "".join(f"{first} {first} {count}\n" for first, _, count in ranges)
                        with open(f"/proc/{self.parent}/{name}", "w") as f:
                            f.write(lines)  # one write: the kernel takes a map whole
                    status = 0
            finally:
                os._exit(status)
        os.close(go_r)

    def map_all(self):
        """After the unshare: whether the child mapped every id."""
        os.write(self.go, b"1")
        os.close(self.go)
        _, status = os.waitpid(self.pid, 0)
        return status == 0  # exited, with 0


def isolate(config, proc=False):
    """Gives this process (and its children) a private, writable view: see the module's
    docstring. Call after `enter`, in the process that will run the candidate. With
    `proc`, in a PID namespace's first process, `/proc` becomes that namespace's, so
    that `/proc/{os.getpid()}` is the run's own process (where the kernel lets a user
    namespace mount it: not under a /proc with parts hidden, as a container's is)."""
    _check(libc().unshare(CLONE_NEWNS), "unshare")
    scratch = config["scratch"]
    _mount("tmpfs", scratch, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0700")
    # The overlays are mounted parent first, and each names its layers by file
    # descriptor: once /tmp is an overlay, a scratch folder under /tmp no longer
    # shows the tmpfs by its path.
    layers = []
    try:
        for i, folder in enumerate(overlaid(config["writable"])):
            upper, work = f"{scratch}/u{i}", f"{scratch}/w{i}"
            os.mkdir(upper)
            os.mkdir(work)
            layers.append((folder, [os.open(p, os.O_PATH) for p in (folder, upper, work)]))
        for folder, fds in layers:
            _mount_overlay(folder, *fds)
    finally:
        for _, fds in layers:
            for fd in fds:
                os.close(fd)
    if os.path.isdir("/dev/shm"):
        _mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "mode=1777")
    if proc:
        try:
            mount_proc()
        except OSError:
            pass  # the host's /proc stays: it names processes by their outer ids
    # The working directory was looked up before the overlays: look it up again.
    os.chdir(config["cwd"])
    drop_capabilities()


def mount_proc():
    """Mounts, on /proc, the proc file system of this process's PID namespace,
    read-only as the rest of the view is."""
    _mount("proc", "/proc", "proc", MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC)


def own_pids():
    """After `enter`, in a process that will fork candidates (the runner's zygote):
    forks the first process of a PID namespace of its own, with a mount namespace
    whose /proc is that namespace's, and returns in it; this process waits for it and
    exits as it does. Raises OSError, in this process, where the kernel refuses the
    namespace. The processes that the new one forks can see and signal only each other
    (`kill(-1, ...)` reaches no process outside), and none of them can kill it: the
    kernel keeps from a namespace's first process every signal for which it has no
    handler. When it exits, the kernel kills every process left in the namespace."""
    die_with_parent()
    _check(libc().unshare(CLONE_NEWPID), "unshare")
    ready_r, ready_w = os.pipe()
    first = os.fork()
    if first != 0:
        os.close(ready_w)
        # Until its /proc is mounted the new process may still fail: then this one
        # cannot serve instead (its children would be born in a namespace that ended).
        if os.read(ready_r, 1) != b"1":
            os.waitpid(first, 0)
            raise OSError("no /proc of its own for a PID namespace here")
        os.close(ready_r)
        _, status = os.waitpid(first, 0)
        os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)
    os.close(ready_r)
    try:
        die_with_parent()
        _check(libc().unshare(CLONE_NEWNS), "unshare")
        mount_proc()
    except BaseException:
        os._exit(1)
    # Signals with a handler (Python's for SIGINT, a preloaded module's) would still
    # reach it from inside.
    for sig in signal.valid_signals():
        try:
            if callable(signal.getsignal(sig)):
                signal.signal(sig, signal.SIG_DFL)
        except (OSError, ValueError):
            pass
    os.write(ready_w, b"1")
    os.close(ready_w)


def _mount_overlay(folder, lower, upper, work):
    """Mounts an overlay on `folder`, its layers given by file descriptor."""
    fd = "/proc/self/fd/"
    layers = f"lowerdir={fd}{lower},upperdir={fd}{upper},workdir={fd}{work}"
    # `userxattr`: the overlay keeps its marks in user.* attributes, the only ones a user
    # namespace may set; without, removing a folder that exists below (rmtree of a build
    # folder) fails with EIO. Kernels before 5.11, or a tmpfs before 6.6, refuse it.
    try:
        _mount("overlay", folder, "overlay", 0, layers + ",userxattr")
    except OSError:
        _mount("overlay", folder, "overlay", 0, layers)


def drop_capabilities():
    """The candidate keeps no capability that could undo the mounts (remount the file
    system writable, unmount an overlay), nor gets one back by exec, even as uid 0. As
    root it keeps the others (`_kept`), across exec too, as a plain run as root has
    them."""
    lib = libc()
    lib.prctl(PR_SET_SECUREBITS, SECBIT_NOROOT | SECBIT_NOROOT_LOCKED, 0, 0, 0)
    if not _kept:
        _check(lib.capset(_CAP_HEADER, _CAP_DATA), "capset")
        return
    for cap in range(64):
        if _UNDOING >> cap & 1:
            lib.prctl(PR_CAPBSET_DROP, cap, 0, 0, 0)
    low, high = _kept & 0xFFFFFFFF, _kept >> 32
    data = (ctypes.c_uint32 * 6)(low, low, low, high, high, high)
    _check(lib.capset(_CAP_HEADER, data), "capset")
    for cap in range(64):
        if _kept >> cap & 1:
            lib.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_RAISE, cap, 0, 0)


# capset(2)'s arguments, made once: all capability sets empty.
_CAP_HEADER = (ctypes.c_uint32 * 2)(LINUX_CAPABILITY_VERSION_3, 0)
_CAP_DATA = (ctypes.c_uint32 * 6)()


_overlaid = {}


def overlaid(folders):
    """The folders that get an overlay: those that exist, each once, parents first; a
    folder inside another on the same file system is covered by the other's overlay.
    Worked out once per process (and so once per worker, before it forks: resolving
    the paths took a fifth of each candidate's isolation)."""
    key = tuple(folders)
    if key not in _overlaid:
        _overlaid[key] = _choose(folders)
    return _overlaid[key]


def _choose(folders):
    chosen = []
    for folder in sorted({os.path.realpath(f) for f in folders if f}, key=len):
        if folder == "/":
            continue  # never: it holds every mount, which an overlay cannot cover
        try:
            dev = os.stat(folder).st_dev
        except OSError:
            continue
        inside = any(
            (folder + "/").startswith(parent.rstrip("/") + "/") and dev == parent_dev for parent, parent_dev in chosen
        )
        if os.path.isdir(folder) and not inside:
            chosen.append((folder, dev))
    return [folder for folder, _ in chosen]


def place(config, text):
    """Puts the candidate's text where the program lives (inside the overlay)."""
    run_as = config.get("runAs")
    if not run_as:
        return
    try:
        fd = os.open(run_as, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o666)
    except PermissionError:
        # A program the user may not write (chmod 444): its overlay copy is made
        # writable for this, then given its mode back (readable to its owner, as
        # Python must read it).
        mode = os.stat(run_as).st_mode & 0o7777
        os.chmod(run_as, mode | 0o600)
        fd = os.open(run_as, os.O_WRONLY | os.O_TRUNC)
        os.fchmod(fd, mode | 0o400)
    with os.fdopen(fd, "wb") as f:
        f.write(text)


def launch(config, file, argv):
    """The subproc backend's launcher: runs argv isolated, with FILE's text placed at
    the program's path (see `contain`). Ends as the program did: with its exit status,
    or killed by the same signal."""
    with open(file, "rb") as f:
        text = f.read()
    # Killed with autodd (even by SIGKILL): then PID 1 below goes too, and with it
    # everything the program started.
    die_with_parent()
    enter()
    contain(config, argv, text)


def contain(config, argv, text=None, said=None):
    """After `enter`: runs argv isolated (with `text`, if given, placed at the program's
    path) in a PID namespace of its own, so that whatever the program leaves running
    (even in a session of its own) dies when it ends, and ends as the program did. With
    `said` (a pipe's write end), why isolation failed is written there, and the program
    does not run; it is closed once the program is isolated."""
    _check(libc().unshare(CLONE_NEWPID), "unshare")
    status_r, status_w = os.pipe()
    init = os.fork()
    if init == 0:
        # PID 1 of the namespace: when it exits, the kernel kills every process left
        # in it. The program runs as its child, so it is not PID 1 itself (signals
        # without a handler do not reach a PID 1).
        status = 127 << 8
        try:
            die_with_parent()
            os.close(status_r)
            try:
                isolate(config, proc=True)
            except BaseException as exc:
                if said is None:
                    raise
                _write_all(said, "failed " + (str(exc) or type(exc).__name__).replace("\n", " ") + "\n")
                raise
            if said is not None:
                os.close(said)
            if text is not None:
                place(config, text)
            program = os.fork()
            if program == 0:
                try:
                    close_inherited()
                    os.execv(argv[0], argv)
                finally:
                    os._exit(127)  # it could not start
            while True:
                pid, status = os.waitpid(-1, 0)
                if pid == program:
                    break
        except BaseException as exc:  # noqa: BLE001 - reported, then the run fails
            if said is None:
                sys.stderr.write(f"autodd sandbox: {exc}\n")
        finally:
            os.write(status_w, b"%d" % status)
            os._exit(0)
    os.close(status_w)
    if said is not None:
        os.close(said)
    os.waitpid(init, 0)
    _end_as(int(os.read(status_r, 32) or b"32512"))


def _write_all(fd, text):
    data = text.encode(errors="replace")
    while data:
        data = data[os.write(fd, data) :]


def close_inherited(keep=()):
    """Closes every descriptor above stderr but those in `keep`: what the process that
    started autodd left open (a shell's `30<>file`, a directory) would otherwise reach
    every run, and write or remove files through it past any view of its own."""
    try:
        fds = [int(name) for name in os.listdir("/proc/self/fd")]
    except OSError:
        fds = range(3, 1 << 16)
    for fd in fds:
        if fd > 2 and fd not in keep:
            try:
                os.close(fd)
            except OSError:
                pass  # the listing's own, or not open


def die_with_parent():
    """SIGKILL to this process when its parent exits (Linux)."""
    parent = os.getppid()
    libc().prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    if os.getppid() != parent:  # the parent went before the request took
        os._exit(137)


# Pauses between attempts at a fork that failed for want of resources (see retrying).
FORK_RETRY_SECONDS = (0.01, 0.03, 0.1, 0.2)


def retrying(start):
    """Calls `start` (a fork) and returns what it does; while it fails for want of
    processes or memory (EAGAIN, ENOMEM), tries again a few times over about 0.3 s:
    with other programs starting and ending, such a shortage is often over at once,
    and a run that could not start must not pass for a broken program."""
    for delay in FORK_RETRY_SECONDS:
        try:
            return start()
        except OSError as exc:
            if exc.errno not in (errno.EAGAIN, errno.ENOMEM):
                raise
        time.sleep(delay)
    return start()


def adopt_orphans():
    """Makes this process the one its orphaned descendants are given to (Linux)."""
    try:
        libc().prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass


# Whether the kernel lists each thread's children in /proc (CONFIG_PROC_CHILDREN).
CHILDREN_FILES = os.path.exists(f"/proc/self/task/{os.getpid()}/children")


def children(pid=None):
    """The children of `pid` (this process by default), by all of its threads
    (Linux; none elsewhere, or once `pid` has exited: its children are then someone
    else's)."""
    me = os.getpid() if pid is None else pid
    found = set()
    if CHILDREN_FILES:
        try:
            tasks = os.listdir(f"/proc/{me}/task")
        except OSError:
            return found  # gone
        for task in tasks:
            try:
                with open(f"/proc/{me}/task/{task}/children") as f:
                    found.update(int(child) for child in f.read().split())
            except (OSError, ValueError):
                pass  # the thread is gone
        return found
    # A kernel without that file: every process's parent, from /proc/PID/stat.
    try:
        entries = os.listdir("/proc")
    except OSError:
        return found
    for entry in entries:
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as f:
                    stat = f.read()
            except OSError:
                continue  # gone meanwhile
            # The command name (field 2) is in parentheses and may hold anything.
            if int(stat[stat.rindex(b")") + 2 :].split()[1]) == me:
                found.add(int(entry))
    return found


def kill_group(pid):
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass


def kill_with_group(pid):
    """Kills `pid` and its group (it may have left the group named by its pid)."""
    kill_group(pid)
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:
        pass


def reap_all():
    """Reaps every child that has exited, without waiting; returns their pids."""
    reaped = []
    while True:
        try:
            pid = os.waitpid(-1, os.WNOHANG)[0]
        except ChildProcessError:
            return reaped
        if pid == 0:
            return reaped
        reaped.append(pid)


def kill_left_by(pids):
    """Kills, with their groups, the children of `pids`: candidates that are done and
    killed, but not yet gone. What such a candidate started in a session of its own
    is not in its group, and becomes this process's to kill only once the candidate
    has exited; until then it could run beside the next candidate."""
    for pid in pids:
        for child in children(pid):
            kill_with_group(child)


def kill_strays(spared, seconds):
    """Kills every child but those in `spared`, with its group, until none is left
    (killing one hands its own children over to this process, when it adopts orphans)
    or `seconds` have passed. Returns the children reaped meanwhile."""
    deadline = time.monotonic() + seconds
    reaped = []
    while True:
        strays = children() - spared
        for pid in strays:
            kill_with_group(pid)
        reaped += reap_all()
        if not strays or time.monotonic() > deadline:
            return reaped
        time.sleep(0.002)


# How long an unisolated run's reaper keeps killing what the program left.
REAP_SECONDS = 2.0


def run_reaped(argv):
    """Runs argv unisolated (`--reap`) so that nothing it starts outlives it, even in a
    session of its own, where no PID namespace can be had. Three processes: this one,
    the host's child and the leader of the process group the host kills, waits and ends
    as the program did; a reaper, in a group of its own, that orphaned descendants are
    given to; and the program, back in this process's group. Once the program has
    ended, or this process is gone (the host killed the group at a time limit, or went
    itself), the reaper kills whatever is left and ends as the program did."""
    close_inherited()
    die_with_parent()
    # Both end as the program did (a SIGSEGV raised again): not dumpable, neither makes
    # a core, not even through a core_pattern pipe. The program is again at its exec.
    set_dumpable(False)
    # A signal the program sends its group (os.killpg(0, sig)) reaches this process
    # too; as in a plain run, only the program's own processes may heed it.
    handled = []
    for sig in signal.valid_signals() - {signal.SIGCHLD}:  # ignored, it reaps nothing
        try:
            signal.signal(sig, signal.SIG_IGN)
            handled.append(sig)
        except (OSError, ValueError):
            pass  # SIGKILL, SIGSTOP, or none such here
    group = os.getpgrp()
    parent = os.getpid()
    try:
        reaper = retrying(os.fork)
    except OSError as exc:
        sys.stderr.write(f"autodd sandbox: cannot start the run: {exc.strerror}\n")
        os._exit(125)
    if reaper == 0:
        status = 125 << 8
        try:
            os.setpgid(0, 0)
            status = _reap(argv, group, parent, handled)
        finally:
            _end_as(status)
    try:
        os.setpgid(reaper, reaper)
    except OSError:
        pass  # it did so itself
    _end_as(os.waitpid(reaper, 0)[1])


class _Gone(Exception):
    """The reaper's parent is gone: the run was killed."""


def _reap(argv, group, parent, handled):
    """The reaper's part of `run_reaped`: returns the program's wait status."""
    me = os.getpid()

    def on_parent_gone(_sig, _frame):
        if os.getpid() == me and os.getppid() != parent:
            raise _Gone

    adopt_orphans()
    signal.signal(signal.SIGTERM, on_parent_gone)
    libc().prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    status = int(signal.SIGKILL)  # a wait status: killed, as the host's kill left it
    # Not yet reaped, so its pid (and a group it leads) is no other process's.
    program = None
    try:
        if os.getppid() != parent:
            raise _Gone
        try:
            program = retrying(os.fork)
        except OSError as exc:
            sys.stderr.write(f"autodd sandbox: cannot start the program: {exc.strerror}\n")
            return 125 << 8
        if program == 0:
            try:
                try:
                    os.setpgid(0, group)
                except OSError:
                    pass  # the group is gone: the run was killed, and so is this
                for sig in handled:
                    signal.signal(sig, signal.SIG_DFL)
                os.execv(argv[0], argv)
            except OSError as exc:
                sys.stderr.write(f"autodd sandbox: {argv[0]}: {exc.strerror}\n")
            finally:
                os._exit(127)
        try:
            os.setpgid(program, group)
        except OSError:
            pass  # it did so itself, or has exec'd
        while True:
            ended = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOWAIT).si_pid
            if ended != program:
                os.waitpid(ended, 0)  # an orphan given to this process
                continue
            # What it leaves in its group goes while its pid is still taken; the
            # parent's end may no longer interrupt (see `program`).
            signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGTERM})
            kill_with_group(program)
            status = os.waitpid(program, 0)[1]
            program = None
            break
    except _Gone:
        pass
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if program:
        kill_with_group(program)
    kill_strays(set(), REAP_SECONDS)
    return status


def _end_as(status):
    """Ends this process as wait status `status` says a process ended."""
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            signal.signal(sig, signal.SIG_DFL)
        except (OSError, ValueError):
            pass  # SIGKILL and SIGSTOP have no handler to reset
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {sig})
        os.kill(os.getpid(), sig)
    os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)


def set_dumpable(on):
    """Whether other processes of the user may reach this one through /proc (its
    root, so its view's overlays, its descriptors, its memory); a process that lacks
    CAP_SYS_PTRACE (a candidate) cannot reach one that is not. Forks inherit it."""
    libc().prctl(PR_SET_DUMPABLE, 1 if on else 0, 0, 0, 0)


def probe(config):
    """Whether isolation works here (see `trial`): prints the JSON list of the writable
    folders that cannot be overlaid and succeeds, or prints why isolation fails and
    fails."""
    import json

    refused, why = trial(config)
    sys.stdout.write((json.dumps(refused) if why is None else why) + "\n")
    sys.stdout.flush()
    return why is None


def trial(config):
    """Tries isolation in a child process: (the writable folders that cannot be
    overlaid, None) when it works, (None, why) when it does not. The kernel refuses an
    overlay over a folder that holds a mount made outside the namespace (a volume under
    the home folder, say): runs see a refused folder read-only, and a folder inside it
    is then tried on its own."""
    import json

    out_r, out_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        status = 1
        try:
            os.close(out_r)
            enter()
            refused = all_refusals(config)
            # After the forks above: a PID namespace takes its first fork as its PID 1.
            _check(libc().unshare(CLONE_NEWPID), "unshare")
            isolate(without(config, refused))
            answer = json.dumps(refused)
            status = 0
        except BaseException as exc:  # noqa: BLE001 - the reason is the answer
            answer = str(exc) or type(exc).__name__
        finally:
            try:
                data = answer.encode()
                while data:
                    data = data[os.write(out_w, data) :]
            finally:
                os._exit(status)
    os.close(out_w)
    chunks = []
    while chunk := os.read(out_r, 65536):
        chunks.append(chunk)
    os.close(out_r)
    _, status = os.waitpid(pid, 0)
    answer = b"".join(chunks).decode(errors="replace").strip()
    if status == 0:  # exited, with 0
        return json.loads(answer or "[]"), None
    return None, answer or "isolation failed"


def all_refusals(config):
    """After `enter`: the writable folders of `config` whose overlay the kernel refuses,
    a folder inside a refused one tried on its own."""
    refused = []
    while True:
        failed = refusals(without(config, refused))
        if not failed:
            return refused
        refused += failed


def without(config, refused):
    """`config` with the folders `refused` no longer writable."""
    return dict(config, writable=[f for f in config["writable"] if os.path.realpath(f) not in refused])


def refusals(config):
    """The folders of `config` whose overlay the kernel refuses, tried one by one in a
    child process (so that each try starts from the same mounts)."""
    import json

    folders = overlaid(config["writable"])
    out_r, out_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(out_r)
            _check(libc().unshare(CLONE_NEWNS), "unshare")
            scratch = config["scratch"]
            _mount("tmpfs", scratch, "tmpfs", MS_NOSUID | MS_NODEV, "mode=0700")
            layers = []
            for i, folder in enumerate(folders):
                upper, work = f"{scratch}/u{i}", f"{scratch}/w{i}"
                os.mkdir(upper)
                os.mkdir(work)
                layers.append((folder, [os.open(p, os.O_PATH) for p in (folder, upper, work)]))
            failed = []
            for folder, fds in layers:
                try:
                    _mount_overlay(folder, *fds)
                except OSError:
                    failed.append(folder)
            os.write(out_w, json.dumps(failed).encode())
        finally:
            os._exit(0)
    os.close(out_w)
    chunks = []
    while chunk := os.read(out_r, 65536):
        chunks.append(chunk)
    os.close(out_r)
    os.waitpid(pid, 0)
    return json.loads(b"".join(chunks) or b"[]")


def main(args):
    if args[:1] == ["--reap"] and len(args) >= 2:
        run_reaped(args[1:])
    import json

    if args[:1] == ["--probe"] and len(args) == 2:
        return 0 if probe(json.loads(args[1])) else 1
    if len(args) < 3:
        sys.stderr.write("usage: sandbox.py CONFIG FILE PYTHON [ARG ...]\n")
        return 2
    try:
        launch(json.loads(args[0]), args[1], args[2:])
    except OSError as exc:
        sys.stderr.write(f"autodd sandbox: {exc}\n")
    return 125


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
