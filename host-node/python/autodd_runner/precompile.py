"""The modules beside the program, compiled once per worker.

`python3 PROGRAM` imports the modules of PROGRAM's folder from their bytecode cache
(`__pycache__`) when it is up to date, and otherwise compiles them and writes the
cache. A candidate cannot keep what it writes (an isolated one writes into a private
overlay, gone when it ends), so where the user's folder holds no up-to-date cache
(a fresh copy, a read-only folder, PYTHONDONTWRITEBYTECODE) every candidate compiled
every such module it imported: a 220-line module cost 2.7 ms of a 30 ms candidate.

So the worker compiles those modules once, before it forks, and each candidate's
import finds the code object here instead of compiling: `SourceLoader.source_to_code`
returns it when the path is the one the import uses and the source is byte for byte
the one compiled; anything else (a module a candidate changed, another spelling of
its path) is compiled as before. Nothing is written, and the program's folder looks
as it did. A module whose compilation warns or fails is left out: its warning or
error belongs in the candidate's output, with the traceback a plain run prints.

Only the program's folder is read (top level first, then the folders below it, not
hidden ones, `__pycache__`, virtual environments or `node_modules`), within
MAX_FILES modules, MAX_BYTES of source and MAX_SECONDS of compiling.
"""

import importlib._bootstrap_external as external
import importlib.util
import os
import time
import warnings

MAX_FILES = 2000
MAX_BYTES = 16 << 20
MAX_SECONDS = 1.0
SKIP_DIRS = {"__pycache__", "node_modules", "site-packages", "dist-packages"}

# Compiled with importlib's file name: should compiling a module the cache does not
# hold raise (a SyntaxError), the traceback drops this frame with importlib's own,
# and reads as a plain run's.
WRAPPER = """
def source_to_code(self, data, path, *args, _optimize=-1, **kwargs):
    hit = cache.get(path)
    if hit is not None and _optimize == -1 and hit[0] == data:
        return hit[1]
    return original(self, data, path, *args, _optimize=_optimize, **kwargs)
"""


def modules(folder, exclude):
    """The .py files of `folder` an import may load, the shallower first."""
    level = [folder]
    while level:
        below = []
        for root in level:
            try:
                entries = sorted(os.scandir(root), key=lambda e: e.name)
            except OSError:
                continue
            for entry in entries:
                if entry.is_dir(follow_symlinks=False):
                    if (
                        not entry.name.startswith(".")
                        and entry.name not in SKIP_DIRS
                        and not os.path.exists(os.path.join(entry.path, "pyvenv.cfg"))
                    ):
                        below.append(entry.path)
                elif entry.name.endswith(".py") and entry.path not in exclude:
                    yield entry.path
        level = below


def cached(path, stat):
    """Whether Python would load `path` from an up-to-date cache file."""
    try:
        with open(importlib.util.cache_from_source(path), "rb") as f:
            header = f.read(16)
    except (OSError, NotImplementedError, ValueError):
        return False
    if len(header) < 16 or header[:4] != importlib.util.MAGIC_NUMBER:
        return False
    if int.from_bytes(header[4:8], "little") != 0:
        return True  # hash-based: Python checks it against the source itself
    return (
        int.from_bytes(header[8:12], "little") == int(stat.st_mtime) & 0xFFFFFFFF
        and int.from_bytes(header[12:16], "little") == stat.st_size & 0xFFFFFFFF
    )


def compile_folder(folder, exclude=()):
    """{path: (source, code)} for the modules of `folder` that have no up-to-date
    cache and compile without a warning, within the limits above."""
    started = time.monotonic()
    compiled, total = {}, 0
    for count, path in enumerate(modules(folder, set(exclude))):
        if count >= MAX_FILES or time.monotonic() - started > MAX_SECONDS:
            break
        try:
            stat = os.stat(path)
            if cached(path, stat):
                continue
            total += stat.st_size
            if total > MAX_BYTES:
                break
            with open(path, "rb") as f:
                source = f.read()
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                code = compile(source, path, "exec", dont_inherit=True)
        except (OSError, SyntaxError, ValueError):
            continue
        if not caught:
            compiled[path] = (source, code)
    return compiled


def install(folder, exclude=()):
    """Compiles the modules of `folder` (see compile_folder) and has imports use them;
    returns how many it compiled. Call in the worker, before it forks."""
    cache = compile_folder(folder, exclude)
    if not cache:
        return 0
    namespace = {
        "__name__": external.__name__,
        "cache": cache,
        "original": external.SourceLoader.source_to_code,
    }
    exec(compile(WRAPPER, external.SourceLoader.get_code.__code__.co_filename, "exec"), namespace)
    wrapper = namespace["source_to_code"]
    wrapper.__qualname__ = "SourceLoader.source_to_code"
    external.SourceLoader.source_to_code = wrapper
    return len(cache)
