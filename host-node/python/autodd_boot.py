"""Starts a runner worker on a machine that has none of autodd's files: the host runs
this text with `python3 -c` through the user's launcher (ssh, srun, kubectl exec, ...)
and sends, before the worker's protocol, one header on stdin: its length in ASCII
digits and a newline, then base64 of zlib of JSON {"files": {path: text}, "run": {path:
base64}} (the variables its runs must see, the hash seed among them, `env` set before
Python started). The files (the worker's package and the stand-ins for `autodd` and
`tilelang`) go to a private temporary folder, removed once the worker and all it started
are gone; candidates run in its run/ folder, which gets the "run" files (`--ship`: the
program's modules and data, at their places relative to it). "stdin" (base64), if
there, is what every run reads on its standard input (`--stdin`), kept as HOME/stdin.
Stdin is read with os.read, unbuffered, so the protocol's first line stays unread.

Run as `python3 -c CODE autodd-remote-run` instead (the subproc backend through a
launcher), it runs the one program the header's "candidate" holds, within its time
limit, and says on stdout when it started and how it ended (see run_one). What it
imports is kept to modules that import nothing slow (no re, no random): it runs once
per candidate there."""
import sys

STARTUP = frozenset(sys.modules)  # before this code's imports (see setup.unshadow)
import binascii, json, os, zlib


def remove(folder):
    """shutil.rmtree(folder, ignore_errors=True), without shutil's imports."""
    for root, dirs, files in os.walk(folder, topdown=False):
        for name in files:
            try:
                os.unlink(os.path.join(root, name))
            except OSError:
                pass
        for name in dirs:
            try:
                os.rmdir(os.path.join(root, name))
            except OSError:
                pass
    try:
        os.rmdir(folder)
    except OSError:
        pass


def private_folder():
    """tempfile.mkdtemp(prefix="autodd-remote-"), without tempfile's imports."""
    parent = os.environ.get("TMPDIR") or "/tmp"
    while True:
        home = os.path.join(parent, "autodd-remote-" + binascii.hexlify(os.urandom(6)).decode())
        try:
            os.mkdir(home, 0o700)
            return home
        except FileExistsError:
            pass


def read_all(fd):
    """What a pipe holds until its end; closes it."""
    data = b""
    while True:
        chunk = os.read(fd, 4096)
        if not chunk:
            break
        data += chunk
    os.close(fd)
    return data


def take(n):
    data = b""
    while len(data) < n:
        chunk = os.read(0, n - len(data))
        if not chunk:
            sys.exit(0)
        data += chunk
    return data


def launch(path, run, home, stdin, isolate):
    """Starts the program, in a session of its own; with `isolate`, in a view of its own
    (see autodd_runner/sandbox.py: the private folder, the home folder, /tmp and
    /var/tmp copy-on-write, the rest read-only) and a PID namespace of its own. Returns
    its pid, the folders it sees read-only (the kernel refused their overlay), and why
    isolation failed if it did: the program then runs unisolated."""
    if not isolate:
        return fork_program(path, run, home, stdin, None), [], None
    pid, said = fork_program(path, run, home, stdin, False)
    if "failed" in said:
        # An overlay the kernel refuses (a mount inside a folder) fails the first
        # try; the second finds which, and leaves those read-only.
        os.waitpid(pid, 0)
        pid, said = fork_program(path, run, home, stdin, True)
    if "failed" in said:
        os.waitpid(pid, 0)
        return fork_program(path, run, home, stdin, None), [], said["failed"]
    return pid, said.get("refused", []), None


def sandbox_failed(said, exc):
    """Says on `said` why isolation failed, as sandbox.contain does."""
    os.write(said, ("failed " + (str(exc) or type(exc).__name__).replace("\n", " ") + "\n").encode(errors="replace"))


def fork_program(path, run, home, stdin, refine):
    """Forks the program's process (unisolated when `refine` is None), which notes its
    process group for the janitor; isolated, returns it with what the isolation said:
    {"failed": WHY} if it failed, {"refused": [folder, ...]} if those are read-only.
    With `refine`, the folders whose overlay the kernel refuses are found first."""
    if refine is not None:
        said_r, said_w = os.pipe()  # closed by the exec
    pid = os.fork()
    if pid == 0:
        try:
            os.setsid()
            # Noted for the janitor before this process lets go of its pipe (the exec
            # or the closerange below): if the run is killed from now on, the janitor
            # knows what to kill. Whole or not at all.
            with open(os.path.join(home, "pgid.new"), "w") as f:
                f.write(str(os.getpid()))
            os.replace(os.path.join(home, "pgid.new"), os.path.join(home, "pgid"))
            feed = os.open(stdin if os.path.exists(stdin) else os.devnull, os.O_RDONLY)
            os.dup2(feed, 0)
            os.close(feed)
            argv = [sys.executable, path]
            if refine is None:
                os.chdir(run)
                os.execv(sys.executable, argv)
            # This process and the PID namespace's init do not exec: they must hold
            # nothing of the run's (the janitor's pipe above all, whose end says the
            # run is gone) but the program's stdio and the pipe to say how it went.
            os.closerange(3, said_w)
            os.closerange(said_w + 1, 1 << 16)
            try:
                import sandbox  # imported already by run_one, where it is on sys.path

                scratch = os.path.join(home, "scratch")
                os.makedirs(scratch, exist_ok=True)
                writable = [run, os.path.expanduser("~"), "/tmp", "/var/tmp"]
                config = {"scratch": scratch, "writable": writable, "runAs": None, "cwd": run}
                sandbox.enter()
                if refine:
                    refused = sandbox.all_refusals(config)
                    config = sandbox.without(config, refused)
                    inside = (os.path.realpath(run) + "/").startswith
                    if not any(inside(os.path.realpath(f) + "/") for f in config["writable"]):
                        raise OSError("the private folder %s holds a mount that cannot be overlaid" % run)
                    if refused:
                        os.write(said_w, ("refused " + json.dumps(refused) + "\n").encode())
                # Ends as the program does; raises if it failed before the program ran.
                sandbox.contain(config, argv, said=said_w)
            except BaseException as exc:  # noqa: BLE001 - the reason goes to the host
                sandbox_failed(said_w, exc)
                os._exit(125)
        finally:
            os._exit(127)
    if refine is None:
        return pid
    os.close(said_w)
    said = read_all(said_r)
    words = {}
    for line in said.decode(errors="replace").splitlines():
        what, _, text = line.partition(" ")
        words[what] = json.loads(text) if what == "refused" else text
    return pid, words


def run_one(candidate, run, home):
    """The subproc backend's run: the program as FILENAME in run/, in a session of its
    own, killed with everything it started at its time limit or when the host goes (the
    end of stdin). Around the program's own output, stdout gets lines that begin with
    NUL, "autodd " and the run's nonce (which the program never sees): "start" before
    it runs; "unisolated WHY" if it was to be isolated and could not be, "refused JSON"
    if it sees those folders read-only; and once it and all it started are gone, "end",
    how it ended ("exit N", "signal NAME" or "timeout") and the milliseconds it ran. A
    launch whose stdout ends without that last line was lost on the way (a dropped
    connection, a host gone)."""
    import signal, threading, time

    mark = b"\0autodd " + candidate["nonce"].encode() + b" "
    os.makedirs(run, exist_ok=True)
    path = os.path.join(run, candidate["fileName"])
    with open(path, "w", encoding="utf-8") as f:
        f.write(candidate["source"])
    stdin = os.path.join(home, "stdin")
    sys.path.insert(0, os.path.join(home, "lib", "autodd_runner"))
    try:
        import sandbox
    except ImportError:  # a Python without ctypes: its leftovers go unswept
        sandbox = None
    # What the program leaves running, even in a session of its own, is given to this
    # process, which kills it once the program has ended (the janitor excepted).
    if sandbox:
        janitor = sandbox.children()
        sandbox.adopt_orphans()
    os.write(1, mark + b"start\n")
    start = time.monotonic()
    pid, refused, why = launch(path, run, home, stdin, candidate.get("isolate"))
    # Said once per run; the host warns once.
    if why:
        os.write(1, mark + b"unisolated " + why.encode(errors="replace").replace(b"\n", b" ") + b"\n")
    if refused:
        os.write(1, mark + b"refused " + json.dumps(refused).encode() + b"\n")

    def kill():
        try:
            os.killpg(pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    def watch():
        while os.read(0, 65536):
            pass
        kill()

    def time_out():
        timed_out.append(True)
        kill()

    threading.Thread(target=watch, daemon=True).start()
    # A timer, not wait(timeout), which polls (up to 50 ms late).
    timed_out = []
    timer = threading.Timer(candidate["timeoutMs"] / 1000, time_out)
    timer.start()
    status = os.waitpid(pid, 0)[1]
    timer.cancel()
    ms = (time.monotonic() - start) * 1000
    ended = "exit %d" % os.WEXITSTATUS(status)
    if timed_out:
        ended = "timeout"
    elif os.WIFSIGNALED(status):
        try:
            ended = "signal " + signal.Signals(os.WTERMSIG(status)).name
        except ValueError:
            ended = "signal %d" % os.WTERMSIG(status)
    kill()  # what it left running
    if sandbox:
        sandbox.kill_strays(janitor, sandbox.REAP_SECONDS)
    os.write(1, mark + ("end %s %.3f\n" % (ended, ms)).encode())
    remove(home)
    os._exit(0)


size = b""
while not size.endswith(b"\n"):
    size += take(1)
header = json.loads(zlib.decompress(binascii.a2b_base64(take(int(size)))))
# A janitor makes the private folder and removes it once the worker and every process
# it started are gone, however they end (a worker killed with SIGKILL cannot clean up,
# even before it knows the folder): it waits for the end of a pipe whose write end they
# all hold. A single run's program, in a session of its own without that pipe, it kills
# then (its process group is in HOME/pgid).
gone_r, gone_w = os.pipe()
name_r, name_w = os.pipe()
if os.fork() == 0:
    os.setsid()
    os.close(gone_w)
    os.close(name_r)
    # Not the session's: the connection ends when the worker's side of it does.
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    try:
        home = private_folder()
    except OSError:
        os._exit(1)  # the worker, told no name, says why
    try:
        os.write(name_w, home.encode())
        os.close(name_w)
    except OSError:  # the worker is gone already
        remove(home)
        os._exit(0)
    while os.read(gone_r, 1):
        pass
    try:
        with open(os.path.join(home, "pgid")) as f:
            os.killpg(int(f.read()), 9)
    except (OSError, ValueError):
        pass
    remove(home)
    os._exit(0)
os.close(gone_r)
os.close(name_w)
home = read_all(name_r)
if not home:
    sys.exit("autodd: cannot make a private folder in %s" % (os.environ.get("TMPDIR") or "/tmp"))
home = home.decode()
owner = os.getpid()
try:
    lib = os.path.join(home, "lib")
    for name, text in header["files"].items():
        path = os.path.join(lib, *name.split("/"))
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    run = os.path.join(home, "run")
    for name, data in header.get("run", {}).items():
        parts = name.split("/")
        if not all(parts) or ".." in parts:
            sys.exit("autodd-remote-worker: refused to write %r" % name)
        path = os.path.join(run, *parts)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(binascii.a2b_base64(data))
    if "stdin" in header:
        # What every run reads on its standard input (`--stdin`); the worker finds it.
        with open(os.path.join(home, "stdin"), "wb") as f:
            f.write(binascii.a2b_base64(header["stdin"]))
    shims = os.path.join(lib, "shims")
    # Last: an `autodd` or `tilelang` installed there wins over the stand-ins.
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (os.environ.get("PYTHONPATH"), shims) if p)
    if sys.argv[-1] == "autodd-remote-run":
        run_one(header["candidate"], run, home)
    sys.path.insert(0, lib)
    sys.path.append(shims)
    from autodd_runner.worker import main

    main(home, startup=STARTUP, keep=(gone_w,))
finally:
    if os.getpid() == owner:  # not in a forked process that got here
        remove(home)
