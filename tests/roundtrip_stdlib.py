#!/usr/bin/env python3
"""Checks that autodd's printer is faithful on the CPython standard library.

For every .py file of the installed standard library (site-packages excluded) it
runs the `roundtrip` example of autodd-core (parse with ruff's parser, convert to the
AST the core uses, print with `autodd_core::unparse`) and, for each file that CPython
accepts, checks that

  * our parser accepts it,
  * ast.dump(ast.parse(printed)) == ast.dump(ast.parse(original)), and
  * printing the printed text again gives the same text (idempotence).

It prints each failing file with a short reason, then a summary line, and exits
non-zero when the rate of identical files among those CPython accepts is below
--min-rate or a file is not idempotent. Run it with each interpreter: it reads that
interpreter's library and compares with that interpreter's `ast`.

Known differences that the printer cannot repair, because the parser hands over a
different AST than CPython builds:

  * (Repaired in autodd-core's parse module: a surrogate escape such as '\\ud800',
    which a Rust string cannot hold, is carried through as a private-use stand-in
    that the printer writes back as the escape.)
  * The text of a debug field (`f"{'\\n'=}"`) keeps its escapes as written, where
    CPython decodes them; only PEP 701 fields can hold one. No stdlib file has one.
  * (Not a difference but a rejection:) the roundtrip binary only reads UTF-8, so
    files in other encodings are reported as rejected; the CLI reads what Python
    reads.

A file whose only differences are these is counted apart ("known parser
differences") and left out of the rate; see `normalize`.
"""

import argparse
import ast
import concurrent.futures
import multiprocessing
import os
import subprocess
import sys
import sysconfig
import tempfile
import time
import warnings
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def find_binary(args):
    if args.bin:
        return Path(args.bin)
    cmd = ["cargo", "build", "--release", "-p", "autodd-core", "--example", "roundtrip"]
    print("building:", " ".join(cmd), file=sys.stderr)
    subprocess.run(cmd, cwd=REPO, check=True)
    target = Path(os.environ.get("CARGO_TARGET_DIR") or "target")
    if not target.is_absolute():
        target = REPO / target
    return target / "release" / "examples" / "roundtrip"


def stdlib_files(limit, root=None):
    root = Path(root or sysconfig.get_paths()["stdlib"]).resolve()
    files = sorted(
        p.relative_to(root).as_posix()
        for p in root.rglob("*.py")
        if "site-packages" not in p.relative_to(root).parts and p.is_file()
    )
    if limit and limit < len(files):
        # An even spread over the library rather than its first folders.
        step = len(files) / limit
        files = [files[int(i * step)] for i in range(limit)]
    return root, files


def run_batches(binary, cwd, names, out_dir, jobs, batch, flags=()):
    """Runs the binary over `names` (relative to `cwd`); returns {name: (ok, text)}
    where text is the output path or the error message."""
    out_dir.mkdir(parents=True, exist_ok=True)
    chunks = [names[i : i + batch] for i in range(0, len(names), batch)]

    def run(chunk):
        proc = subprocess.run(
            [str(binary), *flags, "--out", str(out_dir), *chunk],
            cwd=cwd,
            capture_output=True,
            text=True,
        )
        results = {}
        for line in proc.stdout.splitlines():
            name, _, rest = line.partition("\t")
            if rest.startswith("ERROR "):
                results[name] = (False, rest[len("ERROR ") :])
            else:
                results[name] = (True, rest)
        for name in chunk:
            if name not in results:
                # The binary died before reaching this file (a crash is a bug).
                err = proc.stderr.strip().splitlines()[-1:] or [f"exit {proc.returncode}"]
                results[name] = (False, f"no result (binary crashed: {err[0]})")
        return results

    merged = {}
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        for results in pool.map(run, chunks):
            merged.update(results)
    return merged


def first_difference(a, b, labels=("original", "printed "), context=60):
    i = 0
    n = min(len(a), len(b))
    while i < n and a[i] == b[i]:
        i += 1
    start = max(0, i - context)
    return f"{labels[0]} …{a[start:i + context]}…\n      {labels[1]} …{b[start:i + context]}…"


class _Normalize(ast.NodeTransformer):
    """Erases the known parser differences listed in the module docstring."""

    def visit_Constant(self, node):
        if isinstance(node.value, str) and any("\ud800" <= c <= "\udfff" for c in node.value):
            node.value = "".join("\ufffd" if "\ud800" <= c <= "\udfff" else c for c in node.value)
        return node


def normalize(tree):
    return ast.dump(_Normalize().visit(tree))


def check_file(job):
    """Compares one file; returns (name, status, reason) with status one of 'ok',
    'cpython-rejects', 'ours-rejects', 'differs', 'parser-bug', 'printed-invalid',
    'not-idempotent'."""
    name, original_path, printed_path, reprinted_path = job
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            with open(original_path, "rb") as f:
                original_tree = ast.parse(f.read(), name)
                original = ast.dump(original_tree)
        except (SyntaxError, ValueError) as e:
            return name, "cpython-rejects", str(e)
        if printed_path is None:
            return name, "ours-rejects", None
        printed_text = Path(printed_path).read_text(encoding="utf-8")
        try:
            printed_tree = ast.parse(printed_text, "<printed>")
            printed = ast.dump(printed_tree)
        except (SyntaxError, ValueError) as e:
            line = ""
            if isinstance(e, SyntaxError) and e.lineno:
                lines = printed_text.splitlines()
                if 0 < e.lineno <= len(lines):
                    line = ": " + lines[e.lineno - 1].strip()[:160]
            return name, "printed-invalid", f"{type(e).__name__}: {e}{line}"
    status, reason = "ok", None
    if printed != original:
        reason = first_difference(original, printed)
        if normalize(original_tree) != normalize(printed_tree):
            return name, "differs", reason
        status = "parser-bug"
    if reprinted_path is None:
        return name, "not-idempotent", "reprinting failed"
    reprinted_text = Path(reprinted_path).read_text(encoding="utf-8")
    if reprinted_text != printed_text:
        return name, "not-idempotent", first_difference(printed_text, reprinted_text, ("printed  ", "reprinted"))
    return name, status, reason


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", help="roundtrip example binary (default: build it with cargo)")
    ap.add_argument("--limit", type=int, default=0, help="check only N files, spread over the library")
    ap.add_argument("--min-rate", type=float, default=99.8, help="fail below this %% of identical files")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--batch", type=int, default=200, help="files per binary run")
    ap.add_argument("--dir", help="check the .py files under this folder instead of the stdlib")
    ap.add_argument("--keep", action="store_true", help="keep and print the temporary folder")
    ap.add_argument(
        "--as-written",
        action="store_true",
        help="print literals as each file writes them, as autodd's reductions do",
    )
    args = ap.parse_args()
    flags = ["--as-written"] if args.as_written else []

    started = time.monotonic()
    binary = find_binary(args).resolve()
    root, names = stdlib_files(args.limit, args.dir)
    tmp = Path(tempfile.mkdtemp(prefix="autodd-roundtrip-"))
    try:
        pass1 = run_batches(binary, root, names, tmp / "printed", args.jobs, args.batch, flags)
        # Idempotence: print the printed files again.
        printed_dir = tmp / "printed"
        firsts = {n: Path(r[1]).name for n, r in pass1.items() if r[0]}
        pass2 = run_batches(
            binary, printed_dir, sorted(firsts.values()), tmp / "reprinted", args.jobs, args.batch, flags
        )

        jobs = []
        for name in names:
            ok, text = pass1.get(name, (False, "missing"))
            printed = str(printed_dir / Path(text).name) if ok else None
            reprinted = None
            if ok:
                ok2, text2 = pass2.get(firsts[name], (False, "missing"))
                reprinted = str(tmp / "reprinted" / Path(text2).name) if ok2 else None
            jobs.append((name, str(root / name), printed, reprinted))

        counts = {}
        failures = []
        with multiprocessing.Pool(args.jobs) as pool:
            for name, status, reason in pool.imap_unordered(check_file, jobs, chunksize=8):
                counts[status] = counts.get(status, 0) + 1
                if status == "ours-rejects":
                    print(f"REJECTED {name}: {pass1[name][1]}")
                elif status == "parser-bug":
                    print(f"KNOWN PARSER DIFFERENCE {name}")
                elif status in ("differs", "printed-invalid", "not-idempotent"):
                    failures.append((name, status, reason))
        for name, status, reason in sorted(failures):
            print(f"FAIL {name} [{status}]\n      {reason}")
    finally:
        if args.keep:
            print("outputs kept in", tmp, file=sys.stderr)
        else:
            import shutil

            shutil.rmtree(tmp, ignore_errors=True)

    both = sum(counts.get(k, 0) for k in ("ok", "differs", "printed-invalid", "not-idempotent", "ours-rejects"))
    identical = counts.get("ok", 0) + counts.get("not-idempotent", 0)
    rate = 100.0 * identical / both if both else 0.0
    not_idem = counts.get("not-idempotent", 0)
    print(
        f"roundtrip (Python {sys.version_info[0]}.{sys.version_info[1]}"
        f"{', literals as written' if args.as_written else ''}): "
        f"{identical}/{both} files CPython accepts are identical ({rate:.2f}%), "
        f"{counts.get('parser-bug', 0)} differ only by known parser differences (not counted), "
        f"{counts.get('ours-rejects', 0)} of them rejected by our parser, "
        f"{counts.get('cpython-rejects', 0)} rejected by CPython; "
        f"{identical - not_idem}/{identical} idempotent; {time.monotonic() - started:.0f}s"
    )
    return 0 if rate >= args.min_rate and not_idem == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
