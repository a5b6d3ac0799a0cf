"""The reducers compared: autodd with three configurations, the reference with each
of its backends, and the peers a user could pick instead (peers.py). `run_tool` runs one on one case within a time budget and collects
what it left: the output file, its oracle-run count and (autodd) its report."""

import json
import os
import resource
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from harness import peers

ROOT = Path(__file__).resolve().parents[2]
AUTODD = ROOT / "host-node" / "bin" / "autodd.js"
BUILD = ROOT / "scripts" / "build-wasm.sh"
COUNTING_WRAPPER = Path(__file__).resolve().parent / "ref_counting.py"


@dataclass(frozen=True)
class Tool:
    name: str
    family: str  # "autodd", "reference" or "peer"
    backend: str
    jobs: int
    flags: tuple = ()  # more autodd options


TOOLS = [
    Tool("autodd-runner", "autodd", "runner", 1),
    Tool("autodd-subproc", "autodd", "subproc", 1),
    Tool("autodd-runner-j2", "autodd", "runner", 2),
    Tool("ref-runner", "reference", "runner", 1),
    Tool("ref-subproc", "reference", "subproc", 1),
    Tool("pysource-minimize", "peer", "", 1),
    Tool("cvise", "peer", "", 1),
    Tool("shrinkray", "peer", "", 1),
]
TOOLS_BY_NAME = {tool.name: tool for tool in TOOLS}


def build_autodd(log) -> dict:
    """Builds the wasm engine once, before any timing (scripts/autodd would check,
    and maybe rebuild, inside every timed run). If the build fails (crates/ being
    edited), the package already built is used, with a warning."""
    build = subprocess.run([str(BUILD), "nodejs"], cwd=ROOT, capture_output=True, text=True)
    if build.returncode != 0:
        if not (ROOT / "host-node" / "pkg" / "autodd_wasm_bg.wasm").exists():
            raise SystemExit("bench/run: the wasm engine does not build:\n" + build.stderr[-2000:])
        log("bench/run: warning: scripts/build-wasm.sh nodejs failed; using the engine already in host-node/pkg")
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    dirty = subprocess.run(["git", "status", "--porcelain", "crates", "host-node/src"], cwd=ROOT,
                           capture_output=True, text=True)
    return {"commit": commit.stdout.strip(), "engine_built": build.returncode == 0,
            "uncommitted_changes": bool(dirty.stdout.strip())}


def command(tool: Tool, source: Path, msg: str, workdir: Path, timeout: int, paths: dict,
            autodd: Path = AUTODD) -> list:
    """The command line of `tool` on `source`; `autodd` is the CLI to run (another
    checkout's, for bench/ab)."""
    out = workdir / "out.py"
    if tool.family == "peer":
        return peers.command(tool.name, paths["peers"][tool.name], source, msg, workdir, timeout, paths["python"])
    common = ["--err-msg", msg, "-o", str(out), "--backend", tool.backend, "-j", str(tool.jobs)]
    if tool.family == "autodd":
        return ["node", str(autodd), str(source), *common, "--timeout", str(timeout), "--quiet",
                "--report", str(workdir / "report.json"), *tool.flags]
    return [str(paths["python"]), str(COUNTING_WRAPPER), str(workdir / "runs.txt"), "--",
            str(source), *common, "--timeout", str(timeout)]


def tool_env(paths: dict) -> dict:
    """Both tools run `python3` from PATH (the reference's subproc backend does so
    for every candidate): the venv's, a real interpreter rather than a shim. The
    reference folder on PYTHONPATH makes `from tilelang.autodd import __freeze__`
    work in candidates run by the reference and in the final check."""
    env = dict(os.environ)
    env["PATH"] = f"{paths['bin']}{os.pathsep}{env.get('PATH', '')}"
    env["PYTHONPATH"] = str(paths["reference"])
    env.pop("PYTHONHOME", None)
    return env


def run_tool(tool: Tool, source: Path, msg: str, workdir: Path, budget: float, timeout: int, paths: dict) -> dict:
    """Runs `tool` on `source`; past `budget` seconds its process group gets SIGTERM
    (autodd then writes its report) and, 5 s later, SIGKILL."""
    workdir.mkdir(parents=True, exist_ok=True)
    for stale in ("out.py", "out.py.bak", "out.py.orig", "report.json", "runs.txt", "runs.txt.timeouts", "log.txt",
                  "test.sh"):
        (workdir / stale).unlink(missing_ok=True)
    argv = command(tool, source, msg, workdir, timeout, paths)
    log = open(workdir / "log.txt", "wb")
    # CPU seconds of the tool and every process it waited for: unlike wall time, it
    # does not grow when other work shares the machine (long peer runs may). Processes
    # never waited for (a run stopped at the budget, the reference's leftover runner)
    # are not counted, so a run stopped at the budget shows too little.
    cpu_before = _children_cpu()
    started = time.monotonic()
    proc = subprocess.Popen(argv, cwd=workdir, env=tool_env(paths), stdin=subprocess.DEVNULL,
                            stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    over_budget = False
    try:
        proc.wait(timeout=budget)
    except subprocess.TimeoutExpired:
        over_budget = True
        _signal_group(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            _signal_group(proc.pid, signal.SIGKILL)
            proc.wait()
    wall = min(time.monotonic() - started, budget) if over_budget else time.monotonic() - started
    # Leftover workers (the reference's spawned runner) go with the group.
    _signal_group(proc.pid, signal.SIGKILL)
    log.close()

    result = {"exit": proc.returncode, "over_budget": over_budget, "wall_s": round(wall, 3),
              "cpu_s": round(_children_cpu() - cpu_before, 3), "output": None, "runs": None}
    if tool.family == "autodd":
        # Others may commit to host-node/ or crates/ during a long run: say which
        # version each run used.
        head = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
        result["autodd_commit"] = head.stdout.strip()
    out = workdir / "out.py"
    # A peer that failed leaves the copy of the case it was given: no result.
    peer_failed = tool.family == "peer" and not over_budget and proc.returncode != 0
    if out.exists() and not peer_failed:
        result["output"] = str(out)
    if tool.family == "autodd":
        report = workdir / "report.json"
        if report.exists():
            data = json.loads(report.read_text())
            result["runs"] = data.get("tried")
            timings = data.get("timings", {})
            result["engine_ms"] = timings.get("engineMs")
            result["engine_outside_runs_ms"] = timings.get("engineOutsideRunsMs")
            result["total_ms"] = timings.get("totalMs")
            result["stale"] = data.get("stats", {}).get("stale")
            result["cache_hits"] = data.get("stats", {}).get("cacheHits")
            result["steps"] = [[round(step["elapsedMs"]), step["bytes"]] for step in data.get("steps", [])]
            outcomes = data.get("outcomes", {})
            result["timeouts"] = outcomes.get("timeout", 0) + outcomes.get("stuck", 0)
    elif tool.family == "peer":
        # One byte per call of the interestingness test (interesting.py).
        runs = workdir / "runs.txt"
        result["runs"] = runs.stat().st_size if runs.exists() else 0
    else:
        runs = workdir / "runs.txt"
        if runs.exists() and runs.read_text().strip():
            result["runs"] = int(runs.read_text())
        timeouts = workdir / "runs.txt.timeouts"
        if timeouts.exists() and timeouts.read_text().strip():
            result["timeouts"] = int(timeouts.read_text())
    result["crashed"] = not over_budget and proc.returncode != 0 and (peer_failed or not out.exists())
    if not out.exists() or proc.returncode not in (0, 130, -signal.SIGTERM, -signal.SIGKILL):
        result["log_tail"] = (workdir / "log.txt").read_text(errors="replace")[-1500:]
    return result


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _signal_group(pid: int, sig: int) -> None:
    try:
        os.killpg(pid, sig)
    except ProcessLookupError:
        pass
