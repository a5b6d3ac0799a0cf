"""The runner backend's Python worker: one long-lived process per job.

It imports the modules the program imports once, then forks a child per
candidate, so every candidate starts from the same warm state and no state
leaks from one candidate to the next. On Linux the children are forked by a
zygote, a process forked once from the warm worker that does nothing else (see
Zygote).

Protocol: JSON lines. The host writes requests to the worker's stdin; the
worker answers on its stdout (kept private: the worker's own fd 1 is pointed at
its stderr so nothing printed by an imported module can corrupt the protocol).

  host   {"op": "init", "needle": MSG, "preload": [module, ...], "scriptDir": DIR,
          "programDir": DIR (optional: its modules are not preloaded),
          "sandbox": CONFIG (optional: see autodd_sandbox),
          "stdin": FILE (optional: each candidate's standard input),
          "share": [SLOT, JOBS] (optional: see cpu_share), "pidFile": FILE,
          "memoryLimit": BYTES (optional: see limit_data),
          "prefork": bool (optional: see Zygote)}
  worker {"event": "ready", "preloaded": [...], "failed": [[module, error], ...],
          "skipped": [[module, why], ...] (left for each candidate to import),
          "cpus": [cpu, ...] | null (the CPUs it keeps to; null: all it may use),
          "dataLimit": BYTES | null (the data limit candidates get; null: none)}
  host   {"op": "run", "id": N, "path": FILE, "timeout": SECONDS,
          "stuckAfter": SECONDS (optional: see Stuck)}
  host   {"op": "cancel", "id": N}                      (optional, while running)
  host   {"op": "prepare", "path": FILE, "source": TEXT} (optional, any time: the
          program the next "run" of FILE will likely hold; with "prefork" it is
          compiled ahead, see Zygote)
  worker {"event": "done", "id": N, "found": bool, "foundAnywhere": bool,
          "exception": str|null, "msgLine": str|null, "exitCode": int|null,
          "signal": int|null, "killed": null|"timeout"|"stuck"|"cancelled",
          "stdoutTail": str, "stderrTail": str, "error": str|null,
          "compiledAhead": true (only when it ran code compiled ahead)}

The pid of the candidate running is kept in "pidFile" rather than sent (ten digits
and a newline, overwritten in place; 0 between runs): the host reads it only when it
must kill the candidate itself (the worker died, or the host exits), which saves a
message and a wakeup per run.

The candidate's fds 1 and 2 are pipes read by the worker, which keeps only
what matching needs (see OutputScan). A candidate is killed with its whole process
group on timeout, on cancel, and when the host goes away (EOF on stdin).
"""

import atexit
import errno
import gc
import importlib
import importlib.util
import json
import os
import platform
import re
import resource
import selectors
import signal
import socket
import sys
import time
import types
import warnings

import autodd_sandbox

TAIL_BYTES = 4096
# Compiled once before the first fork: a little of everything a program holds.
WARM_UP = '''
import os
from typing import Any
@decorator
class C(Base, metaclass=M):
    x: int = 1
    def f(self, a, *args, b=2, **kw) -> Any:
        global g
        with open(a) as h, ctx() as (p, q):
            for i in range(10):
                if i % 2 and not a or b is None:
                    continue
                elif i:
                    break
            while True:
                try:
                    yield from [x ** 2 for x in {k: v for k, v in kw.items()} if x]
                except (ValueError, KeyError) as e:
                    raise RuntimeError(f"{e!r:>10} {a[1:2]}") from e
                finally:
                    del a
        return lambda y, /, z=3: (y, *args, {**kw}, -z, ~z)
async def h():
    async with c:
        await x
    match v:
        case [1, *rest] | [*rest, 2] if rest:
            pass
        case Point(x=0):
            pass
'''
# How long to keep reading a candidate's pipes after it exited: a process it
# started elsewhere may still hold them open.
DRAIN_SECONDS = 0.5
# Pauses between attempts at a fork that failed for want of resources (see spawn).
FORK_RETRY_SECONDS = (0.01, 0.03, 0.1, 0.2)
# The RLIMIT_DATA every candidate gets, (soft, hard) (see limit_data); None: no limit.
DATA_LIMIT = None
# The largest source the next candidate's process compiles ahead (see Zygote).
AHEAD_BYTES = 65536
# Whether the zygote forks each candidate ahead of its request (see Zygote).
PREFORK = False
# The isolation config (see autodd_sandbox), or None to run candidates unisolated;
# set by "init". ISOLATED: this process has already isolated itself (a process
# forked ahead does it while it waits).
SANDBOX = None
ISOLATED = False
# A file fed to each candidate's standard input ("stdin" in "init"), else none.
STDIN = None
# Without pidfd support, how often to look whether the child has exited.
POLL_SECONDS = 0.05
# The candidate's output is read when it is done, and in between every so often,
# not on every write: a traceback comes in a dozen writes or more, and waking up
# for each cost more CPU than the rest of this process's work on a candidate.
# Once a read finds this much (a quarter of a pipe), the output is read as it
# comes, so a candidate that prints a lot never waits on a full pipe for long.
OUTPUT_POLL_SECONDS = 0.005
CHATTY_BYTES = 16384


class Finder:
    """Whether `needle` occurs in a stream fed in chunks. The needle may straddle two
    reads, so the last len(needle) - 1 bytes are carried over."""

    def __init__(self, needle):
        self.needle = needle
        self.found = False
        self.carry = b""

    def feed(self, chunk):
        """Returns whether the needle was first found in this chunk."""
        if self.found:
            return False
        data = self.carry + chunk
        if self.needle in data:
            self.found = True
            self.carry = b""
            return True
        keep = len(self.needle) - 1
        self.carry = data[-keep:] if keep > 0 else b""
        return False


# The twin of host-node/src/backends/scan.js, held to the same cases
# (test/fixtures/output-scan.json): see there for what each pattern matches.
MAX_LINE = 65536
MSG_LINE_CHARS = 200
FRAME = re.compile(rb'( *\| )?  File "[^"]*", line \d+')
WARNING = re.compile(rb".*:\d+: [A-Za-z_][\w.]*Warning: ")
HEADER = re.compile(rb"(  \+ Exception Group )?Traceback \(most recent call last\):")
EXCEPTION = re.compile(rb"([A-Za-z_][\w.]*)(?::|\s*$)")
MARKERS = (b'File "', b"Traceback (most recent call last):", b"Warning: ")


class OutputScan:
    """What a stream says about the failure: whether `needle` occurs in what the
    program wrote itself (`own`), or anywhere, quoted source lines included
    (`anywhere`): a traceback quotes each frame's line, a SyntaxError the offending
    line, a warning the line that warned; the first own line holding it
    (`msg_line`); the exception type of the last traceback (`exception`); and the
    stream's tail for messages. Nothing else is kept, so endless output costs no
    memory."""

    def __init__(self, needle):
        self.needle = needle
        self.anywhere = Finder(needle)
        self.own = Finder(needle)
        self.msg_line = None
        self.exception = None
        self.tail = bytearray()
        self.partial = b""
        self.rest = None  # "own" or "quoted": what the rest of an overlong line is
        self.quote = None  # the margin of the frame whose quoted lines may follow
        self.warned = False  # the next line, if indented by two, quotes a warning's source
        self.expect = None  # the margin of the exception line the traceback ends with

    def feed(self, chunk):
        self.anywhere.feed(chunk)
        self.tail += chunk
        if len(self.tail) > TAIL_BYTES:
            del self.tail[:-TAIL_BYTES]
        data = chunk
        if self.rest is not None:
            end = data.find(b"\n")
            piece = data if end < 0 else data[: end + 1]
            if self.rest == "own":
                self.own_text(piece)
            if end < 0:
                return
            self.rest = None
            data = data[end + 1 :]
        if self.partial:
            data = self.partial + data
        end = data.rfind(b"\n")
        complete, partial = data[: end + 1], data[end + 1 :]
        if complete:
            if self.idle() and not any(m in complete for m in MARKERS):
                self.own_text(complete)
            else:
                for line in complete[:-1].split(b"\n"):
                    self.line(line + b"\n")
        if len(partial) > MAX_LINE:
            self.rest = self.line(partial)
            self.partial = b""
        else:
            self.partial = partial

    def end(self):
        """The stream ended: a last line without a newline counts too."""
        if self.partial and self.rest is None:
            self.line(self.partial)
        self.partial = b""
        self.rest = None

    def text(self):
        return bytes(self.tail).decode("utf-8", "replace")

    def idle(self):
        return self.quote is None and not self.warned and self.expect is None

    def line(self, line):
        """Judges one line (with its newline, if it has one): "own" or "quoted"."""
        text = line[:-2] if line.endswith(b"\r\n") else line.rstrip(b"\n")
        if self.warned:
            self.warned = False
            if text.startswith(b"  "):
                return "quoted"
        if self.quote is not None:
            if text.startswith(self.quote + b"    "):
                return "quoted"
            self.quote = None
        frame = FRAME.match(text)
        if frame:
            self.quote = frame.group(1) or b""
            # A SyntaxError of the program itself has a frame and no "Traceback" line.
            if self.expect is None and self.quote == b"":
                self.expect = b""
        elif HEADER.match(text):
            self.expect = b"  | " if text.startswith(b" ") else b""
        elif WARNING.match(text):
            self.warned = True
        elif self.expect is not None and text.startswith(self.expect):
            found = EXCEPTION.match(text, len(self.expect))
            if found:
                self.exception = found.group(1).decode("latin-1")
                self.expect = None
        self.own_text(line)
        return "own"

    def own_text(self, data):
        if not self.own.feed(data):
            return
        # The line holding the needle (or, if it began in an earlier chunk, this
        # chunk's first).
        at = max(data.find(self.needle), 0)
        start = data.rfind(b"\n", 0, at) + 1
        stop = data.find(b"\n", at)
        line = data[start : len(data) if stop < 0 else stop].decode("utf-8", "replace").strip()
        self.msg_line = line[:MSG_LINE_CHARS] + "…" if len(line) > MSG_LINE_CHARS else line


class Control:
    """The request channel: JSON lines on a raw fd, readable without blocking."""

    def __init__(self, fd_in, fd_out):
        self.fd_in = fd_in
        self.fd_out = fd_out
        self.buffer = b""
        self.eof = False

    def send(self, message):
        data = (json.dumps(message) + "\n").encode()
        while data:
            data = data[os.write(self.fd_out, data) :]

    def _pop(self):
        line, sep, rest = self.buffer.partition(b"\n")
        if not sep:
            return None
        self.buffer = rest
        return json.loads(line)

    def receive(self):
        """The next request, blocking; None at EOF."""
        while True:
            message = self._pop()
            if message is not None:
                return message
            if self.eof:
                return None
            self.fill()

    def pending(self):
        """The complete requests already buffered."""
        messages = []
        while True:
            message = self._pop()
            if message is None:
                return messages
            messages.append(message)

    def fill(self):
        """Reads once; blocks unless the fd is readable."""
        chunk = os.read(self.fd_in, 65536)
        if not chunk:
            self.eof = True
        self.buffer += chunk


# Waits that never end by themselves, by syscall number: where the timeout argument is
# and how "no timeout" reads there ("neg": a negative int, "null": a NULL pointer,
# "futex": a FUTEX_WAIT or FUTEX_WAIT_BITSET with a NULL timeout).
ENDLESS_WAITS = {
    "x86_64": {
        7: ("neg", 2),  # poll
        23: ("null", 4),  # select
        202: ("futex", 3),
        232: ("neg", 3),  # epoll_wait
        270: ("null", 4),  # pselect6
        271: ("null", 2),  # ppoll
        281: ("neg", 3),  # epoll_pwait
        441: ("null", 3),  # epoll_pwait2
    },
    "aarch64": {
        22: ("neg", 3),  # epoll_pwait
        72: ("null", 4),  # pselect6
        73: ("null", 2),  # ppoll
        98: ("futex", 3),
        441: ("null", 3),  # epoll_pwait2
    },
}.get(platform.machine(), {})
# Probes of a stuck-looking candidate, this far apart, before it counts as stuck.
STUCK_PROBES = 2
STUCK_PROBE_SECONDS = 0.01


class Stuck:
    """Whether a candidate can never go on: every thread of its process waits for an
    event with no timeout (an asyncio loop with nothing scheduled, a lock or a queue
    nobody will release), it has no child process that could wake it, and it used no
    CPU between probes. Such a run is killed as "stuck" at once instead of at the time
    limit. Blocking reads, sleeps and pause() are not counted: something may end them.
    Linux only (reads /proc); elsewhere nothing is ever stuck.
    """

    def __init__(self, pid):
        self.tasks = f"/proc/{pid}/task"
        self.streak = 0
        self.cpu = None

    def probe(self):
        """Takes one look; returns True once the candidate counts as stuck."""
        cpu = self.idle_cpu()
        if cpu is None or cpu != self.cpu:
            self.streak = 0 if cpu is None else 1
        else:
            self.streak += 1
        self.cpu = cpu
        return self.streak >= STUCK_PROBES

    def idle_cpu(self):
        """The process's CPU ticks if every thread waits endlessly, else None."""
        if not ENDLESS_WAITS:
            return None
        total = 0
        try:
            for tid in os.listdir(self.tasks):
                base = f"{self.tasks}/{tid}"
                with open(f"{base}/children") as f:
                    if f.read().strip():
                        return None
                with open(f"{base}/syscall") as f:
                    if not endless(f.read().split()):
                        return None
                with open(f"{base}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                total += int(fields[11]) + int(fields[12])  # utime, stime
        except (OSError, ValueError, IndexError):
            return None
        return total


def endless(fields):
    """Whether a /proc/PID/task/TID/syscall line is a wait with no timeout."""
    try:
        wait = ENDLESS_WAITS.get(int(fields[0]))
        if wait is None:
            return False
        kind, index = wait
        value = int(fields[1 + index], 16)
        if kind == "neg":
            return bool(value & 0x80000000)
        if kind == "null":
            return value == 0
        op = int(fields[2], 16) & 0x7F
        return op in (0, 9) and value == 0  # FUTEX_WAIT, FUTEX_WAIT_BITSET
    except (ValueError, IndexError):
        return False


def kill_group(pid):
    try:
        os.killpg(pid, signal.SIGKILL)
    except OSError:
        pass


def exit_status(exc):
    """The exit status Python itself gives an uncaught SystemExit."""
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    try:
        sys.stderr.write(str(code) + "\n")
    except Exception:
        pass
    return 1


def execute(path, ahead=None):
    """Runs the program at `path` as `__main__`, like `python3 path`; returns its exit
    status, and whether it ran `ahead`: what `compile_ahead` made of the program
    expected here, used only if it is this very file, byte for byte."""
    import builtins

    # Isolated, the candidate runs from the program's own path (see autodd_sandbox).
    run_as = run_path(path)
    sys.argv[:] = [run_as]
    sys.path[0] = os.path.dirname(run_as)
    main = types.ModuleType("__main__")
    main.__file__ = run_as
    main.__cached__ = None
    main.__builtins__ = builtins
    sys.modules["__main__"] = main
    used = False
    try:
        with open(path, "rb") as f:
            source = f.read()
        if SANDBOX is not None:
            autodd_sandbox.place(SANDBOX, source)
        used = ahead is not None and ahead[0] == path and ahead[1] == source
        if used:
            code = ahead[2]
        else:
            code = compile(source, run_as, "exec", dont_inherit=True)
        exec(code, main.__dict__)
        status = 0
    except SystemExit as exc:
        status = exit_status(exc)
    except BaseException as exc:
        tb = exc.__traceback__
        # Hide this module's frames so the traceback reads like a plain run's.
        while tb is not None and tb.tb_frame.f_code.co_filename == __file__:
            tb = tb.tb_next
        # The default hook prints exc.__traceback__, whatever tb it is given.
        exc.__traceback__ = tb
        sys.excepthook(type(exc), exc, tb)
        status = 1
        if isinstance(exc, KeyboardInterrupt):
            status = 128 + signal.SIGINT
    return finalize(status), used


def run_path(path):
    """The path a candidate read from `path` runs as."""
    return (SANDBOX or {}).get("runAs") or path


def isolate():
    """Isolates this process (a candidate's) once, if candidates are isolated."""
    global ISOLATED
    if SANDBOX is not None and not ISOLATED:
        autodd_sandbox.isolate(SANDBOX)
        ISOLATED = True


def finalize(status):
    """What interpreter shutdown does: wait for threads, run atexit, flush."""
    threading = sys.modules.get("threading")
    try:
        if threading is not None:
            threading._shutdown()
    except BaseException:
        pass
    try:
        atexit._run_exitfuncs()
    except BaseException:
        pass
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            if stream is sys.stdout:
                status = 120
    return status


def child(path, out_w, err_w, done_w, closing, ahead=None):
    status = 70
    try:
        os.setpgid(0, 0)
        if DATA_LIMIT is not None:
            resource.setrlimit(resource.RLIMIT_DATA, DATA_LIMIT)
        os.dup2(out_w, 1)
        os.dup2(err_w, 2)
        for fd in [*closing, out_w, err_w]:
            if fd > 2:
                os.close(fd)
        if STDIN is not None:
            fd = os.open(STDIN, os.O_RDONLY)
            os.dup2(fd, 0)
            os.close(fd)
            sys.stdin = open(0, closefd=False)  # noqa: SIM115 - the candidate's stdin
        try:
            isolate()
        except OSError as exc:
            os.write(2, b"autodd: cannot isolate the candidate: %s\n" % str(exc).encode())
            raise
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        status, used = execute(path, ahead)
        # Its output is all in the pipes now: say so, with the exit status, before
        # the process is torn down (a few tenths of a millisecond the verdict need
        # not wait for). The pid tells this process from a fork of the candidate's;
        # a third field says it ran code compiled ahead.
        os.write(done_w, b"%d %d%s\n" % (os.getpid(), status, b" ahead" if used else b""))
    finally:
        os._exit(status)


def run(control, forker, request, needle, pid_fd):
    job_id = request["id"]
    deadline = time.monotonic() + float(request["timeout"])
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    done_r, done_w = os.pipe()
    try:
        pid = spawn(forker, request["path"], out_w, err_w, done_w, [out_r, err_r, done_r])
    except OSError as exc:
        for fd in (out_r, err_r, done_r):
            os.close(fd)
        return done(job_id, needle, error=f"cannot fork: {exc}")
    finally:
        os.close(out_w)
        os.close(err_w)
        os.close(done_w)
    os.pwrite(pid_fd, b"%10d\n" % pid, 0)
    out, err = OutputScan(needle), OutputScan(needle)
    stuck_after = request.get("stuckAfter")
    stuck_at = None if stuck_after is None else time.monotonic() + float(stuck_after)
    readers = {out_r: out, err_r: err}
    # Read at intervals (see drain): a read must never wait for more.
    for fd in readers:
        os.set_blocking(fd, False)
    killed, status, ahead = supervise(control, forker, job_id, pid, readers, done_r, deadline, stuck_at)
    os.pwrite(pid_fd, b"%10d\n" % 0, 0)
    result = done(job_id, needle, out=out, err=err, killed=killed)
    if ahead:
        result["compiledAhead"] = True
    if status is not None:  # None: cancelled, and left to exit
        if os.WIFSIGNALED(status):
            result["signal"] = os.WTERMSIG(status)
        elif os.WIFEXITED(status):
            result["exitCode"] = os.WEXITSTATUS(status)
    return result


def spawn(forker, path, out_w, err_w, done_w, closing):
    """Starts a candidate (see Forks.spawn). A fork that fails for want of processes
    or memory (EAGAIN, ENOMEM) is tried again a few times over about 0.3 s: with
    other programs starting and ending, such a shortage is often over at once, and
    a candidate that could not start must not pass for a broken one."""
    for delay in FORK_RETRY_SECONDS:
        try:
            return forker.spawn(path, out_w, err_w, done_w, closing)
        except OSError as exc:
            if exc.errno not in (errno.EAGAIN, errno.ENOMEM):
                raise
        time.sleep(delay)
    return forker.spawn(path, out_w, err_w, done_w, closing)


class Forks:
    """Starts each candidate as a fork of this process (where Zygote cannot run)."""

    def __init__(self, control):
        self.control = control

    def prepare(self, path, source):
        """Nothing is forked ahead here."""

    def spawn(self, path, out_w, err_w, done_w, closing):
        """Forks a child running `path` with its output on the given pipes; its pid."""
        # The children that exited since, whose status nobody asked for (a status is
        # asked for before the next fork, so none is lost here).
        reap_all()
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        pid = os.fork()
        if pid == 0:
            fds = [self.control.fd_in, self.control.fd_out]
            child(path, out_w, err_w, done_w, closing + fds)
        try:
            # Also set here, so the group exists before the host hears of the pid.
            os.setpgid(pid, pid)
        except OSError:
            pass
        return pid

    def watch(self, pid):
        """What to register with the selector to learn that `pid` exited: (fd, data)
        pairs, and how often to look when there is nothing to register."""
        if hasattr(os, "pidfd_open"):
            try:
                return [(os.pidfd_open(pid), "exit")], None
            except OSError:
                pass
        return [], POLL_SECONDS

    def exited(self, pid):
        """The fd from `watch` says `pid` exited."""

    def status(self, pid):
        """The wait status of `pid` if it has exited (then it is reaped), else None."""
        wpid, wstatus = os.waitpid(pid, os.WNOHANG)
        return wstatus if wpid == pid else None

    def leave(self, pid):
        """`pid` said it is done and is exiting, or was cancelled: its status is not
        wanted (it is reaped before the next fork)."""


class Zygote:
    """Starts each candidate as a fork of a helper process, itself forked once from
    the warm worker: the zygote does nothing but fork, so the pages it writes between
    forks are few. A process that forked shares all its memory copy-on-write with
    the child, and the worker, busy with the protocol and the candidate's output
    while the child runs, wrote to about 200 of those pages per candidate, each a
    page fault and a copy: about 0.4 ms of CPU per candidate, beside the child's run
    on a second core, or competing with it.

    Requests and answers, one datagram each:
      worker  "f PATH" with the child's three pipe ends (SCM_RIGHTS)
      zygote  "p PID" (forked) or "e ERRNO MESSAGE" (could not fork)
      worker  "w PID", once the child has exited without saying it was done
      zygote  "x PID STATUS"
      worker  "c PATH\0SOURCE", the program expected next (no answer)

    With "prefork" (for a job with a CPU to spare: the host asks for it), the zygote
    forks the next candidate's process as soon as it has handed the current one its
    request, and that process compiles the warm-up program while it waits for its
    own (see prefork). The fork, and the page faults of a first compile in a fresh
    fork (the interpreter's code mapped in, the compiler's pages copied), then run
    beside the current candidate instead of between a request and its run. So does
    compiling the next candidate itself, a fifth of a run or more, when the host
    knows it ahead ("c": the engine proposes it while the current one runs); that
    process uses the compiled code only for a file with the very source it compiled,
    so a guess gone stale costs only the compile. On a
    job's only CPU the same work competes with the candidate: forking ahead there,
    or in the pause between two candidates, made -j 2 on 2 cores 5 to 25% slower.

    The worker learns of an exit from a pidfd, so the zygote is woken only by
    requests: it reaps the children nobody asked about before each fork. Linux only.
    Should the zygote die, candidates are forked from the worker again (`Forks`).
    """

    def __init__(self, control):
        self.sock, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        for stream in (sys.stdout, sys.stderr):
            stream.flush()
        pid = os.fork()
        if pid == 0:
            try:
                self.sock.close()
                os.close(control.fd_in)
                os.close(control.fd_out)
                serve(theirs)
            finally:
                os._exit(0)
        theirs.close()
        self.fallback = Forks(control)
        self.dead = False
        # The children it started, still running or not yet asked about; those whose
        # pidfd said they exited.
        self.mine = set()
        self.gone = set()

    @staticmethod
    def available():
        return (
            sys.platform.startswith("linux")
            and hasattr(socket, "send_fds")
            and hasattr(os, "pidfd_open")
        )

    def ask(self, request, fds=()):
        """Sends a request and returns the answer; None once the zygote is gone."""
        if not self.dead:
            try:
                socket.send_fds(self.sock, [request], list(fds))
                answer = self.sock.recv(256)
                if answer:
                    return answer
            except OSError:
                pass
            self.dead = True
            self.sock.close()
        return None

    def prepare(self, path, source):
        """Passes the program expected next to the next candidate's process, which
        compiles it meanwhile (with PREFORK; see prefork). Unanswered; dropped if the
        zygote cannot take it."""
        if not self.dead and len(source) <= AHEAD_BYTES:
            try:
                self.sock.send(b"c " + os.fsencode(path) + b"\0" + source)
            except OSError:
                pass  # a dead zygote shows at the next request

    def spawn(self, path, out_w, err_w, done_w, closing):
        answer = self.ask(b"f " + os.fsencode(path), [out_w, err_w, done_w])
        if answer is None:
            return self.fallback.spawn(path, out_w, err_w, done_w, closing)
        kind, _, rest = answer.partition(b" ")
        if kind != b"p":
            code, _, why = rest.partition(b" ")
            raise ForkFailed(int(code), why.decode("utf-8", "replace"))
        pid = int(rest)
        self.mine.add(pid)
        return pid

    def watch(self, pid):
        if pid not in self.mine:
            return self.fallback.watch(pid)
        # Not ours to wait for, but its exit still shows on a pidfd.
        return [(os.pidfd_open(pid), "exit")], None

    def exited(self, pid):
        if pid in self.mine:
            self.gone.add(pid)

    def status(self, pid):
        if pid not in self.mine:
            return self.fallback.status(pid)
        if pid not in self.gone:
            return None
        self.mine.discard(pid)
        self.gone.discard(pid)
        answer = self.ask(b"w %d" % pid)
        if answer is None:
            return signal.SIGKILL  # how it ended went with the zygote
        return int(answer.split()[2])

    def leave(self, pid):
        # Reaped by the zygote (or the worker) before the next fork.
        self.mine.discard(pid)
        self.gone.discard(pid)


class ForkFailed(OSError):
    """The zygote could not fork."""


def warm_up():
    """Compiles WARM_UP (or, on a Python without `match`, a bare statement)."""
    try:
        compile(WARM_UP, "<autodd warm-up>", "exec", dont_inherit=True)
    except SyntaxError:
        compile("pass", "<autodd warm-up>", "exec", dont_inherit=True)


def refuse(sock, exc):
    """Answers an "f" request the zygote could not serve: "e ERRNO MESSAGE"."""
    why = (exc.strerror or str(exc)).encode()
    sock.send(b"e %d %s" % (exc.errno or 0, why))


def compile_ahead(message):
    """(path, source, code) for a "c" request's "PATH\0SOURCE": the source compiled as
    `execute` would compile it. None where compiling here could differ from compiling
    in the run: it failed, or it warned (a SyntaxWarning must reach the candidate's
    own stderr, where the needle may be)."""
    path, _, source = message.partition(b"\0")
    path = os.fsdecode(path)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            code = compile(source, run_path(path), "exec", dont_inherit=True)
    except BaseException:
        return None
    return None if caught else (path, source, code)


def prefork(sock, closing=()):
    """Forks the process of the next candidate ahead of its request (see Zygote):
    it compiles the warm-up program, and the program expected next as "c" requests
    bring it (the latest one counts), then waits on a socket of its own for the path
    and the three fds of an "f" request, and runs it as `child` does. Returns its
    pid and that socket; closing the socket unrequested makes it exit. The child
    closes `closing` (fds the zygote holds for another process) at once."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    pid = os.fork()
    if pid == 0:
        try:
            ours.close()
            sock.close()
            for fd in closing:
                os.close(fd)
            os.setpgid(0, 0)
            warm_up()
            try:
                isolate()  # ahead too; a failure shows in the candidate's run
            except OSError:
                pass
            ahead = None
            while True:
                message, fds, _, _ = socket.recv_fds(theirs, AHEAD_BYTES + 8192, 3)
                if fds or not message:
                    break
                ahead = compile_ahead(message)
            if message and len(fds) == 3:
                out_w, err_w, done_w = fds
                child(os.fsdecode(message), out_w, err_w, done_w, [theirs.fileno()], ahead)
        finally:
            os._exit(0)
    theirs.close()
    try:
        os.setpgid(pid, pid)
    except OSError:
        pass
    return pid, ours


def serve(sock):
    """The zygote's loop: a fork per "f" request, a wait per "w" request, and "c"
    requests passed on to the next candidate's process (see Zygote)."""
    spare = None  # with PREFORK: (pid, socket) of the next candidate's process
    # A candidate's descendants that outlive it (a child in a session of its own is
    # not in the group a candidate is killed with) become the zygote's children: it
    # kills them before each fork, and all that is left when it goes.
    adopt_orphans()
    forked = set()
    try:
        serve_requests(sock, forked)
    finally:
        kill_children(set())


def serve_requests(sock, forked):
    spare = None  # with PREFORK: (pid, socket) of the next candidate's process
    while True:
        message, fds, _, _ = socket.recv_fds(sock, AHEAD_BYTES + 8192, 3)
        kind, _, rest = message.partition(b" ")
        if kind == b"c":
            for fd in fds:
                os.close(fd)
            if spare is not None:
                try:
                    spare[1].send(rest)
                except OSError:
                    pass  # it died waiting, or the source is too large: not compiled ahead
            continue
        if kind == b"w":
            for fd in fds:
                os.close(fd)
            pid = int(rest)
            try:
                _, status = os.waitpid(pid, 0)
            except ChildProcessError:
                status = signal.SIGKILL
            forked.discard(pid)
            sock.send(b"x %d %d" % (pid, status))
            continue
        # The children that exited since, whose status nobody asked for (a status
        # is asked for before the next fork, so none is lost here).
        forked.difference_update(reap_all())
        if not message:
            return
        forked.difference_update(kill_children(forked | ({spare[0]} if spare else set())))
        if kind != b"f" or len(fds) != 3:
            for fd in fds:
                os.close(fd)
            sock.send(b"e %d bad request" % errno.EINVAL)
            continue
        if PREFORK:
            # The spare, or if it is gone (it died waiting), a process forked now.
            pid, failure = None, None
            for _ in range(2):
                try:
                    pid, ours = spare or prefork(sock, fds)
                    spare = None
                    try:
                        socket.send_fds(ours, [rest], fds)
                    finally:
                        ours.close()
                    break
                except OSError as exc:
                    pid, spare, failure = None, None, exc
            if pid is None:
                refuse(sock, failure)
            else:
                forked.add(pid)
                sock.send(b"p %d" % pid)
            for fd in fds:
                os.close(fd)
            if pid is not None:
                try:
                    spare = prefork(sock)
                except OSError:
                    pass  # the next one is forked on request
            continue
        try:
            pid = os.fork()
        except OSError as exc:
            pid = None
            refuse(sock, exc)
        if pid == 0:
            out_w, err_w, done_w = fds
            child(os.fsdecode(rest), out_w, err_w, done_w, [sock.fileno()])
        if pid is not None:
            forked.add(pid)
            try:
                os.setpgid(pid, pid)
            except OSError:
                pass
            sock.send(b"p %d" % pid)
        for fd in fds:
            os.close(fd)


PR_SET_CHILD_SUBREAPER = 36
# How long the zygote, going away, keeps killing what its candidates left.
SWEEP_SECONDS = 2.0


def adopt_orphans():
    """Makes this process the one orphaned descendants are given to (Linux)."""
    try:
        autodd_sandbox.libc().prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def children():
    """This process's children (Linux; none elsewhere)."""
    try:
        with open(f"/proc/self/task/{os.getpid()}/children") as f:
            return {int(pid) for pid in f.read().split()}
    except (OSError, ValueError):
        return set()


def kill_children(keep):
    """Kills every child but `keep`, with its group. With nothing to keep (the zygote
    is going), goes on until none is left: killing one hands its own children over.
    Returns the children reaped meanwhile."""
    deadline = time.monotonic() + SWEEP_SECONDS
    reaped = []
    while True:
        strays = children() - keep
        for pid in strays:
            kill_group(pid)
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        reaped += reap_all()
        if keep or not strays or time.monotonic() > deadline:
            return reaped
        time.sleep(0.005)


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


def supervise(control, forker, job_id, pid, readers, done_r, deadline, stuck_at=None):
    """Reads the child's output until it says it is done (on `done_r`; then the output
    still in the pipes is read and the child is left to exit), or until it exits (or
    is killed) and its pipes close. From `stuck_at` on, probes it for being stuck
    (see Stuck). Returns how it was killed, if it was, its wait status (None for a
    cancelled candidate: it is killed and left to exit), and whether it said it ran
    code compiled ahead."""
    sel = selectors.DefaultSelector()
    # The output pipes join the selector once the candidate exits or turns out to
    # print a lot (see OUTPUT_POLL_SECONDS); until then they are read at intervals.
    watching_output = False
    read_at = time.monotonic() + OUTPUT_POLL_SECONDS

    def watch_output():
        nonlocal watching_output
        if not watching_output:
            watching_output = True
            for fd, capture in readers.items():
                sel.register(fd, selectors.EVENT_READ, capture)

    sel.register(control.fd_in, selectors.EVENT_READ, "control")
    sel.register(done_r, selectors.EVENT_READ, "done")
    said = b""
    watched, poll = forker.watch(pid)
    for fd, data in watched:
        sel.register(fd, selectors.EVENT_READ, data)
    killed = None
    status = None
    drain_until = None
    stuck = Stuck(pid) if stuck_at is not None else None
    try:
        messages = control.pending()
        forward(forker, messages)
        if control.eof or is_cancel(messages, job_id):
            return cancel(forker, pid)
        while True:
            now = time.monotonic()
            if status is None:
                if killed is None and now >= deadline:
                    kill_group(pid)
                    killed = "timeout"
                elif killed is None and stuck is not None and now >= stuck_at:
                    stuck_at = now + STUCK_PROBE_SECONDS
                    if stuck.probe():
                        kill_group(pid)
                        killed = "stuck"
                wstatus = forker.status(pid)
                if wstatus is not None:
                    status = wstatus
                    # Whatever the candidate left running in its group goes too.
                    kill_group(pid)
                    drain_until = now + DRAIN_SECONDS
                    watch_output()
                elif not watching_output and now >= read_at:
                    if drain(readers) >= CHATTY_BYTES:
                        watch_output()
                    read_at = now + OUTPUT_POLL_SECONDS
            if status is not None and (not readers or now >= drain_until):
                return killed, status, False
            waits = []
            if status is None:
                if poll is not None:
                    waits.append(poll)
                if not watching_output:
                    waits.append(read_at - now)
                if killed is None:
                    waits.append(deadline - now)
                    if stuck is not None:
                        waits.append(stuck_at - now)
            else:
                waits.append(drain_until - now)
            wait = max(min(waits), 0) if waits else None
            for key, _ in sel.select(wait):
                if key.data == "exit":
                    forker.exited(pid)
                    sel.unregister(key.fd)
                elif key.data == "done":
                    chunk = os.read(done_r, 4096)
                    said += chunk
                    code, ahead = own_status(said, pid)
                    if not chunk:
                        sel.unregister(done_r)
                    elif code is not None and status is None and killed is None:
                        drain(readers)
                        # Whatever the candidate left running in its group goes too.
                        kill_group(pid)
                        forker.leave(pid)
                        return None, (code & 0xFF) << 8, ahead
                elif key.data == "control":
                    control.fill()
                    messages = control.pending()
                    forward(forker, messages)
                    if control.eof:
                        sel.unregister(key.fd)
                    if (
                        (control.eof or is_cancel(messages, job_id))
                        and status is None
                        and killed is None
                    ):
                        return cancel(forker, pid)
                else:
                    chunk = os.read(key.fd, 65536)
                    if chunk:
                        key.data.feed(chunk)
                    else:
                        sel.unregister(key.fd)
                        os.close(key.fd)
                        del readers[key.fd]
    finally:
        for fd in list(readers):
            os.close(fd)
        os.close(done_r)
        for fd, _ in watched:
            os.close(fd)
        sel.close()


def cancel(forker, pid):
    """Kills a candidate whose verdict is no longer wanted, without waiting for it to
    go: the worker is free for the next candidate at once."""
    kill_group(pid)
    forker.leave(pid)
    return "cancelled", None, False


def own_status(said, pid):
    """The exit status in the child's own "PID STATUS [ahead]" line, if it has written
    it, and whether it ran code compiled ahead: (status, ahead), or (None, False)."""
    for line in said.split(b"\n")[:-1]:
        parts = line.split()
        if len(parts) in (2, 3) and parts[0] == b"%d" % pid:
            try:
                return int(parts[1]), parts[2:] == [b"ahead"]
            except ValueError:
                return None, False
    return None, False


def drain(readers):
    """Reads what the pipes (non-blocking) hold now, without waiting for anything
    more; returns how many bytes that was."""
    total = 0
    for fd, capture in readers.items():
        while True:
            try:
                chunk = os.read(fd, 65536)
            except BlockingIOError:
                break
            if not chunk:
                break
            total += len(chunk)
            capture.feed(chunk)
    return total


def forward(forker, messages):
    """Passes the program of each "prepare" request among `messages` (the host's
    guess at the next candidate) on to be compiled ahead (see Zygote)."""
    for m in messages:
        if m.get("op") == "prepare":
            try:
                source = m["source"].encode()
            except UnicodeEncodeError:
                continue  # not what the host writes to the file: no use compiling it
            forker.prepare(m["path"], source)


def is_cancel(messages, job_id):
    return any(m.get("op") == "cancel" and m.get("id") == job_id for m in messages)


def done(job_id, needle, out=None, err=None, killed=None, error=None):
    """The "done" message. `found`: MSG in what the program wrote itself;
    `foundAnywhere`: also counting the source lines Python quotes; `exception`: the
    type of the last traceback, on stderr, else on stdout; `msgLine`: the first own
    line holding MSG."""
    ran = killed is None and error is None and out is not None
    if out is not None:
        out.end()
        err.end()
    return {
        "event": "done",
        "id": job_id,
        "found": ran and (out.own.found or err.own.found),
        "foundAnywhere": ran and (out.anywhere.found or err.anywhere.found),
        "exception": (err.exception or out.exception) if out is not None else None,
        "msgLine": (err.msg_line or out.msg_line) if out is not None else None,
        "exitCode": None,
        "signal": None,
        "killed": killed,
        "stdoutTail": out.text() if out else "",
        "stderrTail": err.text() if err else "",
        "error": error,
    }


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


def main():
    control = Control(os.dup(0), os.dup(1))
    devnull = os.open(os.devnull, os.O_RDWR)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(2, 1)
    sys.stdin = open(os.devnull)

    init = control.receive()
    if init is None or init.get("op") != "init":
        return
    needle = init["needle"].encode()
    sys.path[0] = init["scriptDir"]
    share = init.get("share")
    cpus = keep_to(cpu_share(*share)) if share else None
    pid_fd = os.open(init["pidFile"], os.O_RDWR | os.O_CREAT, 0o600)
    global SANDBOX, STDIN
    STDIN = init.get("stdin")
    if init.get("sandbox"):
        # Before any import can start a thread (a user namespace wants one thread),
        # and after the pid file is open (the file system is read-only from here).
        autodd_sandbox.enter()
        SANDBOX = init["sandbox"]
    loaded, failed, skipped = preload(init.get("preload", []), init.get("programDir"))
    # The first compile() of a process sets up the compiler's state (the AST types
    # among it), over a millisecond that every child would otherwise spend again on
    # its candidate. Modules load from bytecode, so nothing compiled yet: do it here.
    warm_up()
    # Keep the warm heap out of the collector's way so forked children share it.
    gc.freeze()
    global DATA_LIMIT, PREFORK
    DATA_LIMIT = limit_data(init.get("memoryLimit"))
    PREFORK = bool(init.get("prefork"))
    forker = Zygote(control) if Zygote.available() else Forks(control)
    data_limit = None if DATA_LIMIT is None else DATA_LIMIT[0]
    control.send(
        {
            "event": "ready",
            "preloaded": loaded,
            "failed": failed,
            "skipped": skipped,
            "cpus": cpus,
            "dataLimit": data_limit,
        }
    )

    while True:
        request = control.receive()
        if request is None or request.get("op") == "exit":
            return
        if request.get("op") == "prepare":
            forward(forker, [request])
        elif request.get("op") == "run":
            result = run(control, forker, request, needle, pid_fd)
            if control.eof:
                return
            control.send(result)


if __name__ == "__main__":
    main()
