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

Which modules: those the program imports from its folder, and those they import in
turn (a package whole, down its folders, not hidden ones, `__pycache__`, virtual
environments or `node_modules`), within MAX_DIRS folders, MAX_FILES modules of at most
MAX_FILE_BYTES each, MAX_BYTES of source and MAX_SECONDS in all: a program in a large
folder (a home folder) costs only what it imports. Nothing here can stop a worker from
starting: whatever fails is left to the candidates, as before.
"""

import importlib._bootstrap as bootstrap
import importlib._bootstrap_external as external
import importlib.util
import dis
import inspect
import marshal
import os
import sys
import time
import types
import warnings

MAX_DIRS = 500
MAX_FILES = 2000
MAX_FILE_BYTES = 1 << 20
MAX_BYTES = 16 << 20
MAX_SECONDS = 1.0
SKIP_DIRS = {"__pycache__", "node_modules", "site-packages", "dist-packages"}

# What importlib's own method looks like (Python 3.4 to 3.13); another one is left alone.
SIGNATURE = "(self, data, path, *, _optimize=-1)"

# The method in place of importlib's: a module the cache does not hold is compiled
# as importlib compiles it, in a frame with importlib's file name, function name and
# line (padding puts the call there), so a traceback through it (a module that does
# not compile, imported with importlib.import_module) reads as a plain run's.
WRAPPER = """
def source_to_code(self, data, path, *, _optimize=-1):
    hit = cache.get(path)
    if hit is not None and _optimize == -1 and hit[0] == data:
        return hit[1]
    return _call_with_frames_removed(compile, data, path, "exec", dont_inherit=True, optimize=_optimize)
"""


def call_line(method):
    """The line of `method`'s frame in a traceback through it: where it calls compile."""
    try:
        method(None, b"(", "<autodd probe>")
    except SyntaxError as exc:
        tb = exc.__traceback__
        while tb is not None:
            if tb.tb_frame.f_code is method.__code__:
                return tb.tb_lineno
            tb = tb.tb_next
    return None


def package_modules(package, budget):
    """The .py files of the package folder `package` and the folders below it, the
    shallower first, while `budget` (a one-item list of folders left) lasts."""
    level = [package]
    while level:
        below = []
        for root in level:
            budget[0] -= 1
            if budget[0] < 0:
                return
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
                elif entry.name.endswith(".py"):
                    yield entry.path
        level = below


def imported(code):
    """The top-level names of the absolute imports in `code` and the code inside it."""
    names, stack = set(), [code]
    while stack:
        current = stack.pop()
        for instruction in dis.get_instructions(current):
            if instruction.opname == "IMPORT_NAME":
                names.add(str(instruction.argval).partition(".")[0])
        stack.extend(c for c in current.co_consts if isinstance(c, types.CodeType))
    return names


def resolve(folder, name, budget):
    """The files an import of `name` may load from `folder`: the module, or the
    package's modules."""
    module = os.path.join(folder, name + ".py")
    if os.path.isfile(module):
        return [module]
    package = os.path.join(folder, name)
    if name and os.path.isdir(package) and name not in SKIP_DIRS:
        return list(package_modules(package, budget))
    return []


def cached(path, stat):
    """The contents of the cache file Python would load `path` from, if it is up to
    date; else None."""
    try:
        with open(importlib.util.cache_from_source(path), "rb") as f:
            data = f.read()
    except (OSError, NotImplementedError, ValueError):
        return None
    if len(data) < 16 or data[:4] != importlib.util.MAGIC_NUMBER:
        return None
    if int.from_bytes(data[4:8], "little") != 0:
        return data  # hash-based: Python checks it against the source itself
    if (
        int.from_bytes(data[8:12], "little") == int(stat.st_mtime) & 0xFFFFFFFF
        and int.from_bytes(data[12:16], "little") == stat.st_size & 0xFFFFFFFF
    ):
        return data
    return None


def compile_imports(program, text=None):
    """{path: (source, code)} for the modules of the program's folder that `program`
    (whose text is `text`, or else the file's) imports, directly or through them (see
    the module's comment), that have no up-to-date cache and compile without a
    warning."""
    deadline = time.monotonic() + MAX_SECONDS
    folder = os.path.dirname(program)
    if text is None:
        with open(program, "rb") as f:
            text = f.read()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        names = imported(compile(text, program, "exec", dont_inherit=True))
    compiled, total, files, seen, resolved = {}, 0, 0, {program}, set()
    budget = [MAX_DIRS]
    while names:
        name = names.pop()
        if name in resolved:
            continue
        resolved.add(name)
        for path in resolve(folder, name, budget):
            if path in seen:
                continue
            seen.add(path)
            files += 1
            if files > MAX_FILES or time.monotonic() > deadline:
                return compiled
            try:
                stat = os.stat(path)
                if stat.st_size > MAX_FILE_BYTES:
                    continue
                total += stat.st_size
                if total > MAX_BYTES:
                    return compiled
                cache = cached(path, stat)
                if cache is not None:
                    # Python loads this one from its cache: only what it imports matters.
                    names |= imported(marshal.loads(cache[16:]))
                    continue
                with open(path, "rb") as f:
                    source = f.read()
                with warnings.catch_warnings(record=True) as caught:
                    warnings.simplefilter("always")
                    code = compile(source, path, "exec", dont_inherit=True)
                names |= imported(code)
            except Exception:  # noqa: BLE001 - a SyntaxError, a RecursionError: left to the candidate
                continue
            if not caught:
                compiled[path] = (source, code)
    return compiled


def install(program, text=None):
    """Compiles the modules beside `program` that it imports (see compile_imports) and
    has imports use them; returns how many it compiled. Call in the worker, before it
    forks. `text`: the program's, where the file is not there (a worker started
    through a launcher gets each candidate's text, not the program)."""
    original = external.SourceLoader.source_to_code
    # Before 3.10 a deeply nested expression could crash the compiler (not raise).
    if sys.version_info < (3, 10) or str(inspect.signature(original)) != SIGNATURE:
        return 0
    line = call_line(original)
    cache = compile_imports(program, text)
    if not cache or line is None or line < 6:
        return 0
    namespace = {
        "__name__": external.__name__,
        "cache": cache,
        "_call_with_frames_removed": bootstrap._call_with_frames_removed,
    }
    # The call is the wrapper's sixth line: pad it down to the original's.
    text = "\n" * (line - 6) + WRAPPER
    exec(compile(text, original.__code__.co_filename, "exec"), namespace)
    wrapper = namespace["source_to_code"]
    wrapper.__qualname__ = original.__qualname__
    wrapper.__doc__ = original.__doc__
    external.SourceLoader.source_to_code = wrapper
    return len(cache)
