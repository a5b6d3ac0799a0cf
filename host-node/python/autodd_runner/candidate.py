"""The candidate's side: the process forked for one candidate runs its program as
`python3 PROGRAM` would (see `execute`), isolated when asked (see sandbox).
Its settings are set once by the worker's "init" (see worker.main and SETTINGS) before
the first fork."""

import atexit
import gc
import os
import resource
import signal
import sys
import types
import warnings
import weakref

from . import sandbox
from .settings import SETTINGS


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

# The largest source the next candidate's process compiles ahead (see Zygote).
AHEAD_BYTES = 65536


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

    # Isolated, the candidate runs from the program's own path (see sandbox).
    run_as = run_path(path)
    sys.argv[:] = [run_as]
    sys.path[0] = os.path.dirname(run_as)
    main = types.ModuleType("__main__")
    main.__file__ = run_as
    main.__cached__ = None
    main.__builtins__ = builtins
    sys.modules["__main__"] = main
    ours = set(sys.modules) - {"__main__"}
    # The worker's frames lie under the program's: a plain run's recursion limit
    # counts from the program's first frame.
    sys.setrecursionlimit(sys.getrecursionlimit() + frames_below())
    used = False
    try:
        with open(path, "rb") as f:
            source = f.read()
        if SETTINGS.sandbox is not None:
            sandbox.place(SETTINGS.sandbox, source)
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
    # What the program made is freed at its shutdown, not held here (a traceback
    # holds the program's frames, and through them its globals).
    del main
    tb = None
    return finalize(status, ours), used


def frames_below():
    """How many frames the program's first frame stands on in a candidate: the caller's
    (`execute`) and the worker's below it, and before Python 3.12, whose recursion
    limit counts the C calls of exec() too, two more (measured against `python3`)."""
    count = 2 if sys.version_info < (3, 12) else 0
    frame = sys._getframe(1)
    while frame is not None:
        count += 1
        frame = frame.f_back
    return count


def run_path(path):
    """The path a candidate read from `path` runs as."""
    return (SETTINGS.sandbox or {}).get("runAs") or path


def isolate():
    """Isolates this process (a candidate's) once, if candidates are isolated."""
    if SETTINGS.sandbox is not None and not SETTINGS.isolated:
        sandbox.isolate(SETTINGS.sandbox)
        SETTINGS.isolated = True


def disown_finalizers():
    """Keeps the `weakref.finalize` callbacks registered before this candidate's fork
    (the preloaded modules') from running at its exit: their objects are the
    worker's, shared with every candidate, and a real run would finalize them once.
    The finalizers the candidate registers itself still run at its exit. torch, preloaded,
    holds about 150 of them, which took over 30 ms at every candidate's exit."""
    for finalizer in list(getattr(weakref.finalize, "_registry", ())):
        finalizer.atexit = False


def finalize(status, ours):
    """What interpreter shutdown does: wait for threads, run atexit, flush, and
    finalize the program's modules (`__main__` and those it imported, not in `ours`,
    the worker's), so that what their objects do as they go (a `__del__` that
    writes, exits or crashes) happens as in a plain run."""
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
    if not flush():
        status = 120
    # A plain run stops its daemon threads before it finalizes modules; here they
    # would go on and see their modules emptied: with one still running, no finalizing.
    if len(sys._current_frames()) == 1:
        try:
            clear_modules(ours)
        except BaseException:
            pass
    flush()
    return status


def flush():
    """Flushes stdout and stderr; whether stdout took it (Python exits with 120 when
    it cannot flush stdout at the end)."""
    flushed = True
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            if stream is sys.stdout:
                flushed = False
    return flushed


def clear_modules(ours):
    """Finalizes the program's modules as CPython's shutdown does: takes them out of
    sys.modules and collects what only they held (each object's `__del__` sees the
    globals it uses still bound), then clears those still alive, newest first (the
    names with one leading underscore, then every other but `__builtins__`), and
    collects again. The worker's modules are left alone: their objects are shared
    with every candidate."""
    held = []
    for name in [n for n in reversed(list(sys.modules)) if n not in ours]:
        module = sys.modules.pop(name)
        try:
            held.append(weakref.ref(module))
        except TypeError:  # not a module: cannot go before the end anyway
            held.append(lambda module=module: module)
    module = None
    gc.collect()
    for ref in held:
        module = ref()
        if module is None:
            continue
        try:
            # Not getattr: a lazily loaded module (importlib.util.LazyLoader) would load.
            namespace = object.__getattribute__(module, "__dict__")
        except AttributeError:
            continue
        if not isinstance(namespace, dict):
            continue
        for name in [n for n in namespace if n[:1] == "_" and n[1:2] != "_"]:
            namespace[name] = None
        for name in [n for n in namespace if n != "__builtins__"]:
            namespace[name] = None
    gc.collect()


def child(path, out_w, err_w, done_w, closing, ahead=None):
    status = 70
    try:
        os.setpgid(0, 0)
        if SETTINGS.data_limit is not None:
            resource.setrlimit(resource.RLIMIT_DATA, SETTINGS.data_limit)
        os.dup2(out_w, 1)
        os.dup2(err_w, 2)
        for fd in [*closing, *SETTINGS.private_fds, out_w, err_w]:
            if fd > 2:
                os.close(fd)
        if SETTINGS.stdin is not None:
            fd = os.open(SETTINGS.stdin, os.O_RDONLY)
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
        if SETTINGS.sandbox is not None:
            sandbox.set_dumpable(True)  # as a plain run is (the zygote's forks are not)
        disown_finalizers()
        status, used = execute(path, ahead)
        # Its output is all in the pipes now: say so, with the exit status, before
        # the process is torn down (a few tenths of a millisecond the verdict need
        # not wait for). The pid tells this process from a fork of the candidate's;
        # a third field says it ran code compiled ahead.
        os.write(done_w, b"%d %d%s\n" % (os.getpid(), status, b" ahead" if used else b""))
    finally:
        os._exit(status)


def warm_up():
    """Compiles WARM_UP (or, on a Python without `match`, a bare statement)."""
    try:
        compile(WARM_UP, "<autodd warm-up>", "exec", dont_inherit=True)
    except SyntaxError:
        compile("pass", "<autodd warm-up>", "exec", dont_inherit=True)


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
