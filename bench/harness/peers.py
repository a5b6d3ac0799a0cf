"""The peer reducers a user could pick instead of autodd, installed from the package
registries into bench/.cache: pysource-minimize (PyPI, into the benchmark venv),
C-Vise (Debian's `cvise`, run with `--not-c`) and shrinkray (PyPI; it needs
Python >= 3.12, so a venv of its own from pyenv's 3.12, without its LLM
dependencies, run with `--no-llm`). Each gets the same interestingness test
(interesting.py) and per-candidate timeout as autodd, and its calls are counted."""

import glob
import shlex
import shutil
import subprocess
import sys
import venv
from pathlib import Path

HARNESS = Path(__file__).resolve().parent
PYSOURCE_MINIMIZE = "pysource-minimize==0.11.0"
SHRINKRAY = "shrinkray==26.9.13.0"
# shrinkray's requirements without llama-cpp-python and huggingface-hub (its LLM
# passes, off with --no-llm), so nothing is compiled or downloaded beyond PyPI wheels.
SHRINKRAY_DEPS = [
    "click>=8.2.1", "chardet>=5.2.0", "trio>=0.28.0", "textual>=8.0.0", "textual-plotext>=1.0.1",
    "humanize>=4.9.0", "libcst>=1.8.4", "exceptiongroup>=1.2.0", "binaryornot>=0.4.4", "black>=24.1.0",
    "tree-sitter>=0.26.0", "tree-sitter-language-pack>=1.12.2",
]


def python312():
    """An interpreter of Python 3.12 or later that runs: on PATH, else pyenv's. (A
    pyenv shim is on PATH for every version pyenv holds, but it fails for those that
    are not selected, so each candidate is tried.)"""
    candidates = [shutil.which(name) for name in ("python3.13", "python3.12")]
    candidates += sorted(glob.glob(str(Path.home() / ".pyenv" / "versions" / "3.1[2-9]*" / "bin" / "python3")),
                         reverse=True)
    probe = "import sys; sys.exit(sys.version_info < (3, 12))"
    for candidate in filter(None, candidates):
        if subprocess.run([candidate, "-c", probe], capture_output=True).returncode == 0:
            return candidate
    return None


def prepare(cache: Path, paths: dict, log=print) -> dict:
    """Installs what is missing; returns, per peer, how to run it (None: not available
    here, with why in `problems`)."""
    found = {"problems": {}}
    python = paths["python"]
    if subprocess.run([python, "-c", "import pysource_minimize"], capture_output=True).returncode:
        log(f"setup: installing {PYSOURCE_MINIMIZE}")
        subprocess.run([python, "-m", "pip", "install", "-q", PYSOURCE_MINIMIZE], check=True)
    found["pysource-minimize"] = [str(python), str(HARNESS / "pysource_minimize_driver.py")]

    cvise = shutil.which("cvise")
    if cvise is None and shutil.which("apt-get") and _is_root():
        log("setup: installing cvise (apt-get)")
        subprocess.run(["apt-get", "install", "-y", "-qq", "cvise"], capture_output=True)
        cvise = shutil.which("cvise")
    found["cvise"] = [cvise] if cvise else None
    if cvise is None:
        found["problems"]["cvise"] = "cvise is not installed (apt-get install cvise)"

    env_dir = cache / "shrinkray-venv"
    shrinkray = env_dir / "bin" / "shrinkray"
    if not shrinkray.exists():
        base = python312()
        if base is None:
            found["problems"]["shrinkray"] = "shrinkray needs Python >= 3.12, and none was found"
        else:
            log(f"setup: installing {SHRINKRAY} into {env_dir} ({base})")
            pip = [str(env_dir / "bin" / "python3"), "-m", "pip", "install", "-q"]
            # Its dependencies first: the shrinkray command existing is what says
            # the venv is complete.
            try:
                subprocess.run([base, "-m", "venv", str(env_dir)], check=True)
                subprocess.run([*pip, *SHRINKRAY_DEPS], check=True)
                subprocess.run([*pip, "--no-deps", SHRINKRAY], check=True)
            except BaseException as failed:
                # No half-made venv (an install failed or was interrupted): the next
                # run tries again.
                shutil.rmtree(env_dir, ignore_errors=True)
                if not isinstance(failed, subprocess.CalledProcessError):
                    raise
                found["problems"]["shrinkray"] = f"installing it failed: {' '.join(map(str, failed.cmd))}"
    found["shrinkray"] = [str(shrinkray)] if shrinkray.exists() else None
    return found


def version(name: str, argv) -> str:
    """The peer's version, part of the key its cached runs are kept under."""
    if name == "pysource-minimize":
        return PYSOURCE_MINIMIZE
    if name == "shrinkray":
        return SHRINKRAY
    run = subprocess.run([*argv, "--version"], capture_output=True, text=True)
    return (run.stdout or run.stderr).strip().splitlines()[0] if run.returncode == 0 else "unknown"


def test_script(workdir: Path, msg: str, timeout: int, python) -> Path:
    """The interestingness test as the shell script C-Vise and shrinkray run: on its
    argument (shrinkray) or on out.py in its working directory (C-Vise)."""
    script = workdir / "test.sh"
    script.write_text(
        "#!/bin/sh\n"
        f"exec {shlex.quote(str(python))} {shlex.quote(str(HARNESS / 'interesting.py'))} "
        f"\"${{1:-out.py}}\" {shlex.quote(msg)} {timeout} {shlex.quote(str(workdir / 'runs.txt'))}\n"
    )
    script.chmod(0o755)
    return script


def command(name: str, argv, source: Path, msg: str, workdir: Path, timeout: int, python) -> list:
    """The command line of peer `name`. C-Vise and shrinkray reduce workdir/out.py in
    place (a copy of the case, made here); pysource-minimize's driver writes it."""
    out = workdir / "out.py"
    runs = workdir / "runs.txt"
    if name == "pysource-minimize":
        return [*argv, str(source), msg, str(timeout), str(out), str(runs)]
    shutil.copyfile(source, out)
    test = test_script(workdir, msg, timeout, python)
    if name == "cvise":
        # C-Vise takes the test case by its name in the working directory only.
        return [*argv, "--not-c", "--n", "1", "--timeout", str(max(timeout * 4, 10)), str(test), out.name]
    return [*argv, "--no-llm", "--ui", "basic", "--parallelism", "1", "--input-type", "arg",
            "--timeout", str(timeout), "--no-history", "--assume-deterministic", str(test), str(out)]


def _is_root() -> bool:
    import os

    return os.geteuid() == 0


if __name__ == "__main__":
    print(prepare(Path(sys.argv[1]), {"python": Path(sys.argv[2])}))
