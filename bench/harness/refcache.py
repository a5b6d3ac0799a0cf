"""Reference and peer runs kept between benchmark runs.

The reference (tilelang 0.1.15) never changes, and it needs 1 to 10 minutes per case
and backend on 2 cores, so re-running it for every benchmark of a new autodd would
cost hours. A reference run is reused only when everything that decides it is the
same: the tool, the case's text and message, the reference module's bytes, the
budget, the per-candidate timeout, the Python version and the core count. Reused
results say when they were measured; `bench/run --fresh-reference` ignores the cache.

The runs live in bench/runs/, which is committed: a peer run takes up to 30 minutes
per case, so a new clone must not have to repeat hours of them. Each entry holds the
run's figures and the program it ended with, with no path of the machine it ran on."""

import datetime
import hashlib
import json
from pathlib import Path

from harness import machine


def key(tool: str, case: dict, text: str, budget: float, timeout: int, paths: dict, machine: dict,
        version: str = "") -> str:
    """`version`: a peer's version (peers are keyed by it and the harness's test
    script); the reference is keyed by its module's bytes."""
    if version:
        tool_id = version + hashlib.sha256((Path(__file__).parent / "interesting.py").read_bytes()).hexdigest()
    else:
        module = (Path(paths["reference"]) / "tilelang" / "autodd.py").read_bytes()
        tool_id = hashlib.sha256(module).hexdigest()
    parts = [tool, case["name"], case["msg"], text, tool_id,
             f"{budget:g}", str(timeout), machine["python"], str(machine["cores"])]
    return hashlib.sha256("\0".join(parts).encode()).hexdigest()[:20]


def load(folder: Path, digest: str, workdir: Path):
    """The cached run, with its output restored into `workdir`, or None."""
    entry = folder / f"{digest}.json"
    if not entry.exists():
        return None
    data = json.loads(entry.read_text())
    run = data["run"]
    workdir.mkdir(parents=True, exist_ok=True)
    out = workdir / "out.py"
    out.unlink(missing_ok=True)
    if data.get("output_text") is not None:
        out.write_text(data["output_text"])
        run["output"] = str(out)
    else:
        run["output"] = None
    run["measured_on"] = data["measured_on"]
    return run


def store(folder: Path, digest: str, run: dict, tool: str, case: str) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    output = Path(run["output"]).read_text() if run.get("output") else None
    kept = {k: v for k, v in run.items() if k != "output"}
    if run.get("log_tail"):
        kept["log_tail"] = machine.without_paths(run["log_tail"])
    data = {"tool": tool, "case": case, "measured_on": datetime.date.today().isoformat(), "run": kept,
            "output_text": output}
    tmp = folder / f"{digest}.json.tmp"
    tmp.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n")
    tmp.replace(folder / f"{digest}.json")
