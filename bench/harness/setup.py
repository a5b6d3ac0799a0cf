"""Prepares bench/.cache: a private venv with typing_extensions and the reference
reducer's single module, `tilelang/autodd.py`, taken from the tilelang wheel.
Each step is skipped when its result is already there."""

import glob
import subprocess
import sys
import venv
import zipfile
from pathlib import Path

REFERENCE_VERSION = "0.1.15"


def _venv(cache: Path, name: str, log):
    """cache/name, a venv made on first use: its folder and its python3."""
    cache.mkdir(parents=True, exist_ok=True)
    env_dir = cache / name
    python = env_dir / "bin" / "python3"
    if not python.exists():
        log(f"setup: creating {env_dir}")
        venv.EnvBuilder(with_pip=True, symlinks=True).create(env_dir)
    return env_dir, python


def prepare(cache: Path, log=print) -> dict:
    """Returns the paths the tools need: `python` (the venv's interpreter), `bin`
    (the venv's bin folder, put first on PATH so `python3` is that interpreter) and
    `reference` (the folder to put on PYTHONPATH for `import tilelang.autodd`)."""
    env_dir, python = _venv(cache, "venv", log)
    if subprocess.run([python, "-c", "import typing_extensions"], capture_output=True).returncode:
        log("setup: installing typing_extensions")
        subprocess.run([python, "-m", "pip", "install", "-q", "typing_extensions"], check=True)

    reference = cache / "reference"
    module = reference / "tilelang" / "autodd.py"
    if not module.exists():
        wheels = glob.glob(str(cache / f"tilelang-{REFERENCE_VERSION}-*.whl"))
        if not wheels:
            log(f"setup: downloading tilelang=={REFERENCE_VERSION}")
            subprocess.run(
                [python, "-m", "pip", "download", "-q", f"tilelang=={REFERENCE_VERSION}", "--no-deps", "-d", cache],
                check=True,
            )
            wheels = glob.glob(str(cache / f"tilelang-{REFERENCE_VERSION}-*.whl"))
        log(f"setup: extracting tilelang/autodd.py from {Path(wheels[0]).name}")
        module.parent.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(wheels[0]) as wheel:
            module.write_bytes(wheel.read("tilelang/autodd.py"))
    # An empty package file of our own (not tilelang's, which imports its compiled
    # parts): enough for `from tilelang.autodd import __freeze__`.
    init = module.parent / "__init__.py"
    if not init.exists():
        init.write_text("")
    return {"python": python, "bin": env_dir / "bin", "reference": reference}


def prepare_tilelang(cache: Path, log=print) -> dict:
    """A venv with the real tilelang (and the torch and triton it pulls, about 3 GB),
    made once in cache/tilelang-venv, from the cached wheel when there is one. Never
    made by the tests: only bench/tilelang asks for it. Returns its `python` and
    `bin`, and `reference`: an empty folder, for PYTHONPATH (the installed tilelang,
    not the extracted module, must be found)."""
    env_dir, python = _venv(cache, "tilelang-venv", log)
    probe = [python, "-c", f"import tilelang; assert tilelang.__version__ == {REFERENCE_VERSION!r}"]
    if subprocess.run(probe, capture_output=True).returncode:
        wheels = glob.glob(str(cache / f"tilelang-{REFERENCE_VERSION}-*.whl"))
        what = wheels[0] if wheels else f"tilelang=={REFERENCE_VERSION}"
        log(f"setup: installing {Path(what).name} and its dependencies into {env_dir} (about 3 GB)")
        subprocess.run([python, "-m", "pip", "install", "-q", what], check=True)
    empty = cache / "empty"
    empty.mkdir(exist_ok=True)
    return {"python": python, "bin": env_dir / "bin", "reference": empty}


if __name__ == "__main__":
    print(prepare(Path(sys.argv[1])))
