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
          "sandbox": CONFIG (optional: see sandbox),
          "stdin": FILE (optional: each candidate's standard input),
          "share": [K, N] (optional: the K-th of N shares, see cpu_share), "pidFile": FILE,
          "memoryLimit": BYTES (optional: see limit_data),
          "prefork": bool (optional: see Zygote),
          "hugePages": false (optional: do not collapse_heap),
          "warmUp": {"source": TEXT, "name": NAME} (optional: see warm_up_with)}
  worker {"event": "warming"}, before it runs the warm-up program (if any): a worker
          that ends after it ended in the warm-up, not at its start
  worker {"event": "ready", "preloaded": [...], "failed": [[module, error], ...],
          "skipped": [[module, why], ...] (left for each candidate to import),
          "cpus": [cpu, ...] | null (the CPUs it keeps to; null: all it may use),
          "dataLimit": BYTES | null (the data limit candidates get; null: none),
          "hugePagesMib": N (its heap that candidates inherit in huge pages),
          "warmUpError": "Type: message" | null (what stopped the warm-up)}
  Started through a launcher (see autodd_boot.py), the worker gets "fileName": NAME
  in place of "scriptDir" and "pidFile", "isolate": true to isolate candidates there
  where the kernel allows, and "programSource": TEXT (the original program, whose
  imports precompile reads); "ready" then adds "isolated": bool, "isolationError":
  WHY and "refused": [DIR, ...] (the folders candidates see read-only).
  host   {"op": "run", "id": N, "path": FILE, "timeout": SECONDS,
          "stuckAfter": SECONDS (optional: see Stuck)}
          or, started remotely, "source": TEXT instead of "path" (see below)
  host   {"op": "cancel", "id": N}                      (optional, while running)
  host   {"op": "prepare", "path": FILE, "source": TEXT} (optional, any time: the
          program the next "run" of FILE will likely hold; with "prefork" it is
          compiled ahead, see Zygote)
  worker {"event": "done", "id": N, "found": bool, "foundAnywhere": bool,
          "exception": str|null, "msgLine": str|null, "exitCode": int|null,
          "signal": int|null, "killed": null|"timeout"|"stuck"|"cancelled",
          "stdoutTail": str, "stderrTail": str, "error": str|null,
          "compiledAhead": true (only when it ran code compiled ahead)}

Started remotely (by autodd_boot.py, through a launcher such as ssh, with no file
of the host's at hand), the worker gets HOME, its private folder: "init" then has
"fileName" (the program's file name) instead of "scriptDir" and "pidFile", each
"run" brings the candidate's "source", which the worker writes into HOME/run/FILENAME
and runs from there; the host sends no "prepare".

The pid of the candidate running is kept in "pidFile" rather than sent (ten digits
and a newline, overwritten in place; 0 between runs): the host reads it only when it
must kill the candidate itself (the worker died, or the host exits), which saves a
message and a wakeup per run.

The candidate's fds 1 and 2 are pipes read by the worker, which keeps only
what matching needs (see scan).

This module is the protocol and the supervision of each run; the rest lives beside
it, in this package: candidate (the candidate's process), forkers (forking, the
zygote), scan (reading output), stuck (stuck detection), setup (CPU share, memory
limit, preloading), sandbox (isolation), settings (what "init" set). A candidate is killed with its whole process
group on timeout, on cancel, and when the host goes away (EOF on stdin), and once it
says it is done; itself too, should it have left that group (os.setpgid(0, other)).
"""

import gc
import json
import os
import selectors
import sys
import time

from . import precompile, sandbox
from .candidate import warm_up
from .forkers import Forks, Zygote, adopt_orphans, kill_children, kill_group, kill_with_group, spare_children, spawn
from .scan import OutputScan
from .settings import SETTINGS
from .setup import collapse_heap, cpu_share, keep_to, limit_data, preload, unshadow, warm_up_with
from .stuck import STUCK_PROBE_SECONDS, Stuck


# How long to keep reading a candidate's pipes after it exited: a process it
# started elsewhere may still hold them open.
DRAIN_SECONDS = 0.5

# The candidate's output is read when it is done, and in between every so often,
# not on every write: a traceback comes in a dozen writes or more, and waking up
# for each cost more CPU than the rest of this process's work on a candidate.
# Once a read finds this much (a quarter of a pipe), the output is read as it
# comes, so a candidate that prints a lot never waits on a full pipe for long.
OUTPUT_POLL_SECONDS = 0.005

CHATTY_BYTES = 16384


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
                    kill_with_group(pid)
                    killed = "timeout"
                elif killed is None and stuck is not None and now >= stuck_at:
                    stuck_at = now + STUCK_PROBE_SECONDS
                    if stuck.probe():
                        kill_with_group(pid)
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
                    code, ahead = own_status(said, forker.inner(pid))
                    if not chunk:
                        sel.unregister(done_r)
                    elif code is not None and status is None and killed is None:
                        drain(readers)
                        # Whatever the candidate left running in its group goes too.
                        kill_with_group(pid)
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
    kill_with_group(pid)
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


def remote_sandbox(home, run_dir, program):
    """The isolation of a worker started through a launcher, on the other side: the
    config (see sandbox) for candidates run from `program` in `run_dir`, with a scratch
    folder in `home`, the folders they see read-only (the kernel refused their overlay)
    and None; or None, [] and why isolation does not work there."""
    scratch = os.path.join(home, "scratch")
    os.makedirs(scratch, exist_ok=True)
    writable = [run_dir, os.path.expanduser("~"), "/tmp", "/var/tmp"]
    config = {"scratch": scratch, "writable": writable, "runAs": program, "cwd": run_dir}
    refused, why = sandbox.trial(config)
    if why is not None:
        return None, [], why
    config = sandbox.without(config, refused)
    if not any((os.path.realpath(run_dir) + "/").startswith(os.path.realpath(f) + "/") for f in config["writable"]):
        return None, [], f"the private folder {run_dir} holds a mount that cannot be overlaid"
    return config, refused, None


def main(home=None, startup=None, keep=()):
    """Serves the host; `home`: started remotely, the worker's private folder;
    `startup`: the modules Python had imported before the worker's code; `keep`: the
    descriptors above stderr it and its candidates hold on to (the remote janitor's
    pipe), every other one is closed."""
    sandbox.close_inherited(keep)
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
    program = None
    # Started remotely and isolated: where each candidate's text goes, and the file
    # written there (opened before the file system turns read-only).
    text_path, text_fd = None, None
    isolation_error, refused = None, []
    if home is not None:
        run_dir = os.path.join(home, "run")
        os.makedirs(run_dir, exist_ok=True)  # it may hold the files shipped
        os.chdir(run_dir)
        program = os.path.join(run_dir, init["fileName"])
        init["scriptDir"] = run_dir
        # As here: a module beside the program (shipped) is left to each candidate.
        init["programDir"] = run_dir
        init["pidFile"] = os.path.join(home, "pid")
        if os.path.exists(os.path.join(home, "stdin")):
            init["stdin"] = os.path.join(home, "stdin")
        if init.get("isolate"):
            init["sandbox"], refused, isolation_error = remote_sandbox(home, run_dir, program)
            if init["sandbox"]:
                text_path = os.path.join(home, "candidate")
                text_fd = os.open(text_path, os.O_RDWR | os.O_CREAT, 0o600)
    if home is None:
        sys.path[0] = init["scriptDir"]
    else:
        sys.path.insert(0, init["scriptDir"])
    # Isolated, a candidate runs from the program's own folder, not scriptDir.
    shadowing = {init["scriptDir"], init.get("programDir") or init["scriptDir"]}
    unshadow(shadowing, startup)
    share = init.get("share")
    cpus = keep_to(cpu_share(*share)) if share else None
    pid_fd = os.open(init["pidFile"], os.O_RDWR | os.O_CREAT, 0o600)
    SETTINGS.private_fds = tuple(fd for fd in (pid_fd, text_fd) if fd is not None)
    SETTINGS.stdin = init.get("stdin")
    if init.get("sandbox"):
        # Before any import can start a thread (a user namespace wants one thread),
        # and after the pid file is open (the file system is read-only from here).
        sandbox.enter()
        SETTINGS.sandbox = init["sandbox"]
        # Worked out here once, not in every candidate's process.
        sandbox.overlaid(init["sandbox"]["writable"])
    loaded, failed, skipped = preload(init.get("preload", []), init.get("programDir"))
    warm = init.get("warmUp")
    warm_error = None
    if warm:
        control.send({"event": "warming"})
        warm_error = warm_up_with(warm["source"], warm["name"])
    # The modules beside the program, compiled once here rather than by every
    # isolated candidate that imports them (see precompile). Unisolated (here or
    # through a launcher), candidates share a folder, where the first import leaves
    # the cache.
    run_as = (SETTINGS.sandbox or {}).get("runAs")
    if run_as:
        try:
            precompile.install(run_as, init.get("programSource"))
        except Exception:  # noqa: BLE001 - never a reason for a worker not to start
            pass
    # The first compile() of a process sets up the compiler's state (the AST types
    # among it), over a millisecond that every child would otherwise spend again on
    # its candidate. Modules load from bytecode, so nothing compiled yet: do it here.
    warm_up()
    # Keep the warm heap out of the collector's way so forked children share it.
    gc.freeze()
    # A large heap (torch's) in huge pages: each fork copies, and each candidate's
    # exit drops, 512 times fewer page-table entries (see collapse_heap).
    try:
        huge = collapse_heap() if init.get("hugePages", True) else 0
    except Exception:  # noqa: BLE001 - never a reason for a worker not to start
        huge = 0
    data_limit = limit_data(init.get("memoryLimit"))
    SETTINGS.data_limit = data_limit
    SETTINGS.prefork = bool(init.get("prefork"))
    # Again: what the worker imported since (the standard library's, from its path).
    unshadow(shadowing, startup)
    # What a candidate leaves running is adopted by the zygote; should a candidate kill
    # the zygote, by the worker, which kills it before its next fork and at its end.
    spare_children()
    adopt_orphans()
    forker = Zygote(control, own_pids=SETTINGS.sandbox is not None) if Zygote.available() else Forks(control)
    control.send(
        {
            "event": "ready",
            "preloaded": loaded,
            "failed": failed,
            "skipped": skipped,
            "cpus": cpus,
            "dataLimit": None if data_limit is None else data_limit[0],
            "hugePagesMib": huge,
            "warmUpError": warm_error,
            **({"isolated": SETTINGS.sandbox is not None} if text_path or isolation_error else {}),
            **({"isolationError": isolation_error} if isolation_error else {}),
            # Isolated candidates whose zygote has no PID namespace of its own.
            **({"sharedPids": True} if SETTINGS.sandbox is not None and not forker.own_pids else {}),
            **({"refused": refused} if refused else {}),
        }
    )

    try:
        serve_host(control, forker, needle, pid_fd, text_fd, text_path, program)
    finally:
        kill_children(set())


def serve_host(control, forker, needle, pid_fd, text_fd, text_path, program):
    """Runs the host's requests until it says exit or goes away."""
    while True:
        request = control.receive()
        if request is None or request.get("op") == "exit":
            return
        if request.get("op") == "prepare":
            forward(forker, [request])
        elif request.get("op") == "run":
            if text_fd is not None:
                # The candidate places it at the program's path in its own overlay.
                data = request.pop("source").encode()
                os.ftruncate(text_fd, 0)
                written = 0
                while written < len(data):
                    written += os.pwrite(text_fd, data[written:], written)
                request["path"] = text_path
            elif program is not None:
                with open(program, "w", encoding="utf-8") as f:
                    f.write(request.pop("source"))
                request["path"] = program
            result = run(control, forker, request, needle, pid_fd)
            if control.eof:
                return
            control.send(result)


if __name__ == "__main__":
    main()
