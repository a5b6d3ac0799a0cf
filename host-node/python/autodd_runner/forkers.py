"""Starting candidates: a fork of the worker (`Forks`) or, on Linux, of a zygote
forked once from the warm worker (`Zygote`), which can fork each candidate ahead of
its request and kills what candidates leave behind."""

import errno
import os
import signal
import socket
import sys

from . import sandbox
from .sandbox import (
    adopt_orphans,
    children,
    kill_group,
    kill_left_by,
    kill_strays,
    kill_with_group,
    reap_all,
    retrying,
)
from .settings import SETTINGS
from .candidate import AHEAD_BYTES, child, compile_ahead, isolate, warm_up


# Without pidfd support, how often to look whether the child has exited.
POLL_SECONDS = 0.05


def spawn(forker, path, out_w, err_w, done_w, closing):
    """Starts a candidate (see Forks.spawn). A fork that fails for want of processes
    or memory (EAGAIN, ENOMEM) is tried again a few times over about 0.3 s: with
    other programs starting and ending, such a shortage is often over at once, and
    a candidate that could not start must not pass for a broken one (see
    sandbox.retrying)."""
    return retrying(lambda: forker.spawn(path, out_w, err_w, done_w, closing))


class Forks:
    """Starts each candidate as a fork of this process (where Zygote cannot run)."""

    # Its candidates are in this process's PID namespace.
    own_pids = False

    def __init__(self, control):
        self.control = control

    @staticmethod
    def inner(pid):
        """The pid `pid` has where it runs: the same."""
        return pid

    def prepare(self, path, source):
        """Nothing is forked ahead here."""

    def spawn(self, path, out_w, err_w, done_w, closing):
        """Forks a child running `path` with its output on the given pipes; its pid."""
        # The children that exited since, whose status nobody asked for (a status is
        # asked for before the next fork, so none is lost here), and what the last
        # candidates left running that was handed to this process (a candidate that
        # killed the zygote): killed, with what the candidates killed but not yet gone
        # started in a session of their own.
        kill_left_by(children() - SPARED)
        kill_children(set())
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
      zygote  "r", once, when it is ready
      worker  "f PATH" with the child's three pipe ends (SCM_RIGHTS)
      zygote  "p PID" (forked; with a pidfd of the child) or "e ERRNO MESSAGE"
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

    A forked process runs its candidate only once the zygote has said its pid (it
    waits for a "go"), and exits without running it if the zygote dies first: a
    candidate that kills its parent (the zygote) could otherwise do so before the
    answer, and the worker, seeing no answer, would run it again, from the worker.

    Isolated, the zygote is the first process of a PID namespace of its own (see
    sandbox.own_pids): a candidate sees and signals only the processes of that
    namespace, and cannot kill the zygote. It names its children by their pids there,
    which the worker turns into its own from the pidfd that comes with each answer.

    The worker learns of an exit from a pidfd, so the zygote is woken only by
    requests: it reaps the children nobody asked about before each fork. Linux only.
    Should the zygote die, a new one is started (in a PID namespace of its own, a few
    times at most); past that, candidates are forked from the worker (`Forks`).
    """

    def __init__(self, control, own_pids=False):
        self.control = control
        self.fallback = Forks(control)
        # The children it started, still running or not yet asked about, by the pid
        # they have here: (their pid in the zygote's namespace, a pidfd); those whose
        # pidfd said they exited.
        self.mine = {}
        self.gone = set()
        self.restarts = 0
        # The zygotes that died (a PID namespace's one waits for it), to be reaped.
        self.dead_zygotes = []
        self.start(own_pids)

    def start(self, own_pids):
        """Forks the zygote. With `own_pids` (isolated candidates) it is the first
        process of a PID namespace of its own (see sandbox.own_pids); where the kernel
        refuses that, a zygote like the others (`own_pids` then says False)."""
        for self.own_pids in (True, False) if own_pids else (False,):
            self.sock, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            for stream in (sys.stdout, sys.stderr):
                stream.flush()
            pid = os.fork()
            if pid == 0:
                try:
                    self.sock.close()
                    os.close(self.control.fd_in)
                    os.close(self.control.fd_out)
                    if self.own_pids:
                        sandbox.own_pids()
                        SPARED.clear()  # the worker's, by pids that mean others here
                    if SETTINGS.sandbox is not None:
                        # A candidate could write through /proc/PID/root into the view
                        # of the next one's process, forked ahead and isolated: that
                        # process, as every one the zygote forks, is out of reach until
                        # it runs its candidate (see candidate.child).
                        sandbox.set_dumpable(False)
                    theirs.send(READY)
                    serve(theirs)
                finally:
                    os._exit(0)
            theirs.close()
            self.pid = pid
            self.dead = self.sock.recv(16) != READY
            if not self.dead:
                return
            self.sock.close()
            os.waitpid(pid, 0)

    @staticmethod
    def available():
        return (
            sys.platform.startswith("linux")
            and hasattr(socket, "send_fds")
            and hasattr(os, "pidfd_open")
        )

    def ask(self, request, fds=()):
        """Sends a request and returns the answer and the fds that came with it; (None,
        []) once the zygote is gone."""
        if not self.dead:
            try:
                socket.send_fds(self.sock, [request], list(fds))
                answer, fds, _, _ = socket.recv_fds(self.sock, 256, 1)
                if answer:
                    return answer, fds
            except OSError:
                pass
            self.dead = True
            self.sock.close()
        return None, []

    def prepare(self, path, source):
        """Passes the program expected next to the next candidate's process, which
        compiles it meanwhile (with SETTINGS.prefork; see prefork). Unanswered; dropped if the
        zygote cannot take it."""
        if not self.dead and len(source) <= AHEAD_BYTES:
            try:
                self.sock.send(b"c " + os.fsencode(path) + b"\0" + source)
            except OSError:
                pass  # a dead zygote shows at the next request

    def spawn(self, path, out_w, err_w, done_w, closing):
        request = b"f " + os.fsencode(path)
        answer, fds = self.ask(request, [out_w, err_w, done_w])
        if answer is None and self.own_pids and self.restarts < ZYGOTE_RESTARTS:
            # Killed from outside (candidates cannot): another, as isolated.
            self.restarts += 1
            self.forget()
            self.start(True)
            answer, fds = self.ask(request, [out_w, err_w, done_w])
        if answer is None:
            return self.fallback.spawn(path, out_w, err_w, done_w, closing)
        kind, _, rest = answer.partition(b" ")
        if kind != b"p":
            code, _, why = rest.partition(b" ")
            raise ForkFailed(int(code), why.decode("utf-8", "replace"))
        # The zygote names the child by its pid in the zygote's PID namespace; the
        # pidfd that comes with it names it here, and says when it exits.
        inner = int(rest)
        if not fds:
            raise ForkFailed(errno.ESRCH, "the zygote sent no pidfd")
        try:
            pid = pid_here(fds[0]) if self.own_pids else inner
        except OSError:
            os.close(fds[0])
            raise
        self.mine[pid] = (inner, fds[0])
        return pid

    def inner(self, pid):
        """The pid candidate `pid` has in the zygote's PID namespace."""
        return self.mine[pid][0] if pid in self.mine else pid

    def watch(self, pid):
        if pid not in self.mine:
            return self.fallback.watch(pid)
        # Not ours to wait for, but its exit still shows on its pidfd.
        return [(os.dup(self.mine[pid][1]), "exit")], None

    def exited(self, pid):
        if pid in self.mine:
            self.gone.add(pid)

    def status(self, pid):
        if pid not in self.mine:
            return self.fallback.status(pid)
        if pid not in self.gone:
            return None
        inner, pidfd = self.mine.pop(pid)
        os.close(pidfd)
        self.gone.discard(pid)
        answer, _ = self.ask(b"w %d" % inner)
        if answer is None:
            return signal.SIGKILL  # how it ended went with the zygote
        return int(answer.split()[2])

    def leave(self, pid):
        # Reaped by the zygote (or the worker) before the next fork.
        if pid in self.mine:
            os.close(self.mine.pop(pid)[1])
        self.gone.discard(pid)

    def forget(self):
        """Drops what is known of the children of a zygote that died (they died with
        it, or were left to the worker, which kills them before its next fork)."""
        for _, pidfd in self.mine.values():
            os.close(pidfd)
        self.mine.clear()
        self.gone.clear()
        self.dead_zygotes.append(self.pid)
        for pid in list(self.dead_zygotes):
            try:
                if os.waitpid(pid, os.WNOHANG)[0] == 0:
                    continue
            except ChildProcessError:
                pass
            self.dead_zygotes.remove(pid)


# How many times a zygote in a PID namespace of its own is started again.
ZYGOTE_RESTARTS = 3


# What the zygote says once it is ready to fork candidates.
READY = b"r"


def pid_here(pidfd):
    """The pid, in this process's PID namespace, of the process `pidfd` refers to
    (raises OSError once it has been reaped: its pid may name another process)."""
    with open(f"/proc/self/fdinfo/{pidfd}") as f:
        for line in f:
            if line.startswith("Pid:"):
                pid = int(line.split()[1])
                if pid > 0:
                    return pid
    raise OSError(errno.ESRCH, "the candidate's process is gone")


class ForkFailed(OSError):
    """The zygote could not fork."""


def refuse(sock, exc):
    """Answers an "f" request the zygote could not serve: "e ERRNO MESSAGE"."""
    why = (exc.strerror or str(exc)).encode()
    sock.send(b"e %d %s" % (exc.errno or 0, why))


def prefork(sock, closing=()):
    """Forks the process of the next candidate ahead of its request (see Zygote):
    it compiles the warm-up program, and the program expected next as "c" requests
    bring it (the latest one counts), then waits on a socket of its own for the path
    and the three fds of an "f" request, and runs it as `child` does. Returns it as
    a Spare; closing its socket unrequested makes it exit. The child closes `closing`
    (fds the zygote holds for another process) at once."""
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
    pid = os.fork()
    if pid == 0:
        try:
            ours.close()
            sock.close()
            # The worker's private files too (its pid file): a candidate in the same
            # PID namespace could reach them through /proc/PID/fd while this one waits.
            for fd in (*closing, *SETTINGS.private_fds):
                os.close(fd)
            SETTINGS.private_fds = ()
            os.setpgid(0, 0)
            # Python's SIGINT handler would turn a SIGINT a candidate sends it into an
            # exit the zygote cannot see coming; by default it kills, which shows (see
            # Spare.untouched). Its candidate gets the handler back (see child).
            signal.signal(signal.SIGINT, signal.SIG_DFL)
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
            if message and len(fds) == 3 and theirs.recv(1) == GO:
                out_w, err_w, done_w = fds
                child(os.fsdecode(message), out_w, err_w, done_w, [theirs.fileno()], ahead)
        finally:
            os._exit(0)
    theirs.close()
    try:
        os.setpgid(pid, pid)
    except OSError:
        pass
    return Spare(pid, ours)


class Spare:
    """The process forked ahead for the next candidate: its pid, the zygote's end of
    its socket, and its /proc stat, open to be read again (see untouched).

    A candidate can signal it (they share a PID namespace): one stopped would stall its
    candidate to the time limit, one killed but not gone yet would fail it. So the
    zygote sends it SIGCONT before it hands it a candidate (which drops a pending stop,
    or ends one), and forks another if a signal is killing it (see untouched)."""

    def __init__(self, pid, sock):
        self.pid, self.sock, self.stat = pid, sock, None
        try:
            self.stat = os.open(f"/proc/{pid}/stat", os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            pass  # /proc cannot tell: alive, as far as is known

    def untouched(self):
        """Whether it may take its candidate: not stopped (SIGCONT sent: stopped still,
        it was stopped again since), and not being killed: no SIGKILL pending (the
        kernel adds one for any signal that kills without a core dump), no deadly
        signal taken, no exit begun, not ended (as its /proc stat, read again, shows;
        gone, it cannot be read). The zygote looks once the candidate before it and
        what that one left are killed (see docs/isolation.md)."""
        try:
            os.kill(self.pid, signal.SIGCONT)
        except OSError:
            return False
        if self.stat is None:
            return True
        try:
            stat = os.pread(self.stat, 4096, 0)
            fields = stat[stat.rindex(b")") + 2 :].split()
            state, flags, pending = fields[0], int(fields[6]), int(fields[28])
        except (OSError, ValueError, IndexError):
            return False
        killed = pending & (1 << (signal.SIGKILL - 1)) or flags & DYING
        return state not in STOPPED_OR_ENDED and not killed

    def close(self):
        """Lets go of it (before the zygote forks again: the next process must not hold
        this one's /proc stat); unless it was handed its candidate and its go, it exits."""
        self.sock.close()
        if self.stat is not None:
            os.close(self.stat)
            self.stat = None


# A process's flags, in /proc/PID/stat, once it has begun to exit or has taken a deadly
# signal (Linux's PF_EXITING, PF_SIGNALED; the second comes first, before a core dump).
DYING = 0x4 | 0x400
# Its states, there, once stopped (by a signal, or a tracer) or ended.
STOPPED_OR_ENDED = (b"T", b"t", b"Z", b"X", b"x")


def serve(sock):
    """The zygote's loop: a fork per "f" request, a wait per "w" request, and "c"
    requests passed on to the next candidate's process (see Zygote)."""
    # A candidate's descendants that outlive it (a child in a session of its own is
    # not in the group a candidate is killed with) become the zygote's children: it
    # kills them before each fork, and all that is left when it goes.
    adopt_orphans()
    forked = set()
    try:
        serve_requests(sock, forked)
    finally:
        kill_left_by(forked)
        kill_children(set())


def serve_requests(sock, forked):
    spare = None  # with SETTINGS.prefork: the next candidate's process (a Spare)
    while True:
        message, fds, _, _ = socket.recv_fds(sock, AHEAD_BYTES + 8192, 3)
        kind, _, rest = message.partition(b" ")
        if kind == b"c":
            for fd in fds:
                os.close(fd)
            if spare is not None:
                try:
                    spare.sock.send(rest)
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
        reaped = set(reap_all())
        forked.difference_update(reaped)
        if not message:
            return
        # The candidates forked before are done (the worker killed each when it said
        # so, or it ended): what one still exiting started goes now, not only once it
        # has exited.
        kill_left_by(forked)
        reaped.update(kill_children(forked | ({spare.pid} if spare else set())))
        forked.difference_update(reaped)
        if spare is not None and (spare.pid in reaped or not spare.untouched()):
            # Signalled while it waited (a candidate's doing): another takes the request.
            if spare.pid not in reaped:
                kill_with_group(spare.pid)
            spare.close()
            spare = None
        if kind != b"f" or len(fds) != 3:
            for fd in fds:
                os.close(fd)
            sock.send(b"e %d bad request" % errno.EINVAL)
            continue
        if SETTINGS.prefork:
            # The spare, or if it is gone (it died waiting), a process forked now.
            taker, failure = None, None
            for _ in range(2):
                try:
                    taker = spare or prefork(sock, fds)
                    spare = None
                    try:
                        socket.send_fds(taker.sock, [rest], fds)
                    except OSError:
                        taker.close()
                        raise
                    break
                except OSError as exc:
                    taker, spare, failure = None, None, exc
            if taker is None:
                refuse(sock, failure)
            else:
                forked.add(taker.pid)
                if announce(sock, taker.pid):
                    go(taker)
                else:
                    taker.close()
            for fd in fds:
                os.close(fd)
            if taker is not None:
                try:
                    spare = prefork(sock)
                except OSError:
                    pass  # the next one is forked on request
            continue
        try:
            wait_r, wait_w = os.pipe()
        except OSError as exc:
            refuse(sock, exc)
            for fd in fds:
                os.close(fd)
            continue
        try:
            pid = os.fork()
        except OSError as exc:
            pid = None
            refuse(sock, exc)
        if pid == 0:
            os.close(wait_w)
            if os.read(wait_r, 1) != GO:
                os._exit(0)  # the zygote died before it said the pid
            os.close(wait_r)
            out_w, err_w, done_w = fds
            child(os.fsdecode(rest), out_w, err_w, done_w, [sock.fileno()])
        os.close(wait_r)
        if pid is not None:
            forked.add(pid)
            try:
                os.setpgid(pid, pid)
            except OSError:
                pass
            if announce(sock, pid):
                try:
                    os.write(wait_w, GO)
                except OSError:
                    pass  # it died already
        os.close(wait_w)
        for fd in fds:
            os.close(fd)


# What a forked process waits for before it runs its candidate (see Zygote).
GO = b"g"


def announce(sock, pid):
    """Answers an "f" request for child `pid`, which waits for its go: "p PID" (its pid
    here) with a pidfd of it, which names it in the worker's PID namespace. Returns
    whether the child may go; if no pidfd could be had, it is killed and the request
    refused."""
    try:
        pidfd = os.pidfd_open(pid)
    except OSError as exc:
        kill_with_group(pid)
        refuse(sock, exc)
        return False
    try:
        socket.send_fds(sock, [b"p %d" % pid], [pidfd])
    finally:
        os.close(pidfd)
    return True


def go(spare):
    """Lets a forked-ahead process run the request it was handed, now that the worker
    knows its pid."""
    try:
        spare.sock.send(GO)
    except OSError:
        pass  # it died already; its exit shows on its pidfd
    finally:
        spare.close()


# How long the zygote, going away, keeps killing what its candidates left.
SWEEP_SECONDS = 2.0
# How long the zygote, before a fork, keeps killing what the last candidates left.
STRAY_SECONDS = 0.05

# Children of this process that were there before it started candidates (the remote
# janitor, which the worker's process forked first): never strays.
SPARED = set()


def spare_children():
    """Marks this process's children so far as none of the candidates' doing."""
    SPARED.update(children())


def kill_children(keep):
    """Kills every child but `keep` (and SPARED), with its group, until none is left
    (see sandbox.kill_strays). Before a fork it gives up after STRAY_SECONDS (a stray
    that keeps coming back is killed again before the next fork); with nothing to keep
    (the zygote is going), after SWEEP_SECONDS. Returns the children reaped meanwhile."""
    return kill_strays(keep | SPARED, STRAY_SECONDS if keep else SWEEP_SECONDS)


