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
limit, and says on stdout when it started and how it ended (see run_one)."""
import base64, json, os, shutil, sys, tempfile, zlib


def take(n):
    data = b""
    while len(data) < n:
        chunk = os.read(0, n - len(data))
        if not chunk:
            sys.exit(0)
        data += chunk
    return data


def run_one(candidate, run, home):
    """The subproc backend's run: the program as FILENAME in run/, in a session of its
    own, killed with everything it started at its time limit or when the host goes (the
    end of stdin). Around the program's own output, stdout gets two lines that begin
    with NUL, "autodd " and the run's nonce (which the program never sees): "start"
    before it runs, and once it and all it started are gone, how it ended ("exit N",
    "signal NAME" or "timeout") and the milliseconds it ran. A launch whose stdout ends
    without that last line was lost on the way (a dropped connection, a host gone)."""
    import signal, subprocess, threading, time

    mark = b"\0autodd " + candidate["nonce"].encode() + b" "
    os.makedirs(run, exist_ok=True)
    path = os.path.join(run, candidate["fileName"])
    with open(path, "w", encoding="utf-8") as f:
        f.write(candidate["source"])
    stdin = os.path.join(home, "stdin")
    feed = open(stdin, "rb") if os.path.exists(stdin) else subprocess.DEVNULL
    os.write(1, mark + b"start\n")
    start = time.monotonic()
    proc = subprocess.Popen([sys.executable, path], cwd=run, stdin=feed, start_new_session=True)
    with open(os.path.join(home, "pgid"), "w") as f:
        f.write(str(proc.pid))

    def kill():
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass

    def watch():
        while os.read(0, 65536):
            pass
        kill()

    threading.Thread(target=watch, daemon=True).start()
    try:
        status = proc.wait(candidate["timeoutMs"] / 1000)
        ended = "exit %d" % status
        if status < 0:
            try:
                ended = "signal " + signal.Signals(-status).name
            except ValueError:
                ended = "signal %d" % -status
    except subprocess.TimeoutExpired:
        kill()
        proc.wait()
        ended = "timeout"
    ms = (time.monotonic() - start) * 1000
    kill()  # what it left running
    os.write(1, mark + ("end %s %.3f\n" % (ended, ms)).encode())
    shutil.rmtree(home, ignore_errors=True)
    os._exit(0)


size = b""
while not size.endswith(b"\n"):
    size += take(1)
header = json.loads(zlib.decompress(base64.b64decode(take(int(size)))))
home = tempfile.mkdtemp(prefix="autodd-remote-")
# A janitor removes the folder once the worker and every process it started are gone,
# however they end (a worker killed with SIGKILL cannot clean up): it waits for the end
# of a pipe whose write end they all hold. A single run's program, in a session of its
# own without that pipe, it kills then (its process group is in HOME/pgid).
gone_r, gone_w = os.pipe()
if os.fork() == 0:
    os.setsid()
    os.close(gone_w)
    # Not the session's: the connection ends when the worker's side of it does.
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    while os.read(gone_r, 1):
        pass
    try:
        with open(os.path.join(home, "pgid")) as f:
            os.killpg(int(f.read()), 9)
    except (OSError, ValueError):
        pass
    shutil.rmtree(home, ignore_errors=True)
    os._exit(0)
os.close(gone_r)
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
            f.write(base64.b64decode(data))
    if "stdin" in header:
        # What every run reads on its standard input (`--stdin`); the worker finds it.
        with open(os.path.join(home, "stdin"), "wb") as f:
            f.write(base64.b64decode(header["stdin"]))
    shims = os.path.join(lib, "shims")
    # Last: an `autodd` or `tilelang` installed there wins over the stand-ins.
    os.environ["PYTHONPATH"] = os.pathsep.join(p for p in (os.environ.get("PYTHONPATH"), shims) if p)
    if sys.argv[-1] == "autodd-remote-run":
        run_one(header["candidate"], run, home)
    sys.path.insert(0, lib)
    sys.path.append(shims)
    from autodd_runner.worker import main

    main(home)
finally:
    if os.getpid() == owner:  # not in a forked process that got here
        shutil.rmtree(home, ignore_errors=True)
