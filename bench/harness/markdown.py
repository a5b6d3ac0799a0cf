"""BENCHMARKS.md from a results document (see bench/run)."""

import statistics

AUTODD = "autodd-runner"
AUTODD_J2 = "autodd-runner-j2"
REFERENCES = ("ref-runner", "ref-subproc")
PEERS = ("pysource-minimize", "cvise", "shrinkray")


def unfrozen_tokens(run):
    """A result's tokens with the frozen code it kept counted out (see metrics.frozen)."""
    return (run.get("frozen") or {}).get("tokens_unfrozen", run.get("tokens"))


def best_peer(case: dict):
    """The peer whose result reproduced with the fewest tokens, frozen code counted
    out (then the least time), or None."""
    good = [(name, case["tools"][name]) for name in PEERS
            if name in case["tools"] and case["tools"][name]["reproduces"]]
    if not good:
        return None
    return min(good, key=lambda item: (unfrozen_tokens(item[1]), item[1]["wall_s"]))


def peer_ratios(case: dict) -> dict:
    """autodd (runner, -j1) against the peer with the smallest result."""
    ours = case["tools"].get(AUTODD)
    peer = best_peer(case)
    if not (ours and ours["reproduces"] and peer):
        return {}
    name, theirs = peer
    out = {"peer": name, "peer_over_budget": theirs["over_budget"],
           "tokens": unfrozen_tokens(ours) / unfrozen_tokens(theirs)}
    if not ours["over_budget"]:
        out["time"] = ours["wall_s"] / theirs["wall_s"]
    return out


def best_reference(case: dict):
    """The reference backend that reproduced with the fewest tokens (then the least
    time), or None when neither did."""
    runs = [(name, case["tools"][name]) for name in REFERENCES if name in case["tools"]]
    good = [(name, r) for name, r in runs if r["reproduces"]]
    if not good:
        return None
    return min(good, key=lambda item: (item[1]["tokens"], item[1]["wall_s"]))


def ratios(case: dict) -> dict:
    """autodd (runner, -j1) against the best reference backend, -j2 speedup, engine share."""
    out = {}
    ours = case["tools"].get(AUTODD)
    ref = best_reference(case)
    if ours and ours["reproduces"] and ref:
        name, theirs = ref
        out["reference"] = name
        out["tokens"] = ours["tokens"] / theirs["tokens"]
        # Runs and time compare only when autodd finished: a reference stopped at the
        # budget would have needed more, so the ratio is then an upper bound; two runs
        # stopped at the budget only compare throughput.
        if not ours["over_budget"]:
            if ours["runs"] and theirs["runs"]:
                out["runs"] = ours["runs"] / theirs["runs"]
            out["time"] = ours["wall_s"] / theirs["wall_s"]
        out["reference_over_budget"] = theirs["over_budget"]
    two = case["tools"].get(AUTODD_J2)
    if ours and two and not ours["over_budget"] and not two["over_budget"]:
        out["speedup_j2"] = ours["wall_s"] / two["wall_s"]
    elif ours and two:
        speedup = _time_to_size_speedup(ours.get("steps"), two.get("steps"))
        if speedup is not None:
            out["speedup_j2"] = speedup
            out["speedup_estimated"] = True
    if ours and ours.get("engine_ms") is not None and ours.get("total_ms"):
        # What the engine adds to the wall time: its calls while no candidate ran (the
        # host proposes the next candidate while the current one runs). All of its
        # calls, overlapped or not, are shown beside it.
        outside = ours.get("engine_outside_runs_ms")
        out["engine_share"] = (ours["engine_ms"] if outside is None else outside) / ours["total_ms"]
        out["engine_calls_share"] = ours["engine_ms"] / ours["total_ms"]
    return out


def _time_to_size_speedup(one, two):
    """When a run stopped at the budget: how much sooner -j 2 reached the smallest
    size both runs reached (from the accepted steps: [elapsed ms, bytes])."""
    if not one or not two:
        return None
    common = max(min(b for _, b in one), min(b for _, b in two))
    t1 = next(t for t, b in one if b <= common)
    t2 = next(t for t, b in two if b <= common)
    return t1 / t2 if t2 > 0 else None


def _repeat_note(repeat: int) -> str:
    if repeat <= 1:
        return ""
    return (f" `autodd-runner` and `autodd-runner-j2` ran {repeat} times each, alternating, and the"
            " faster run of each counts (a run stopped at the budget is not repeated): the"
            " machine's timing noise is about 10%. Every autodd run uses one hash seed"
            " (`PYTHONHASHSEED=0`), so the repeats make the same search.")


def render(doc: dict, results: str, scale: dict | None = None, heavy: dict | None = None,
           tilelang: dict | None = None) -> str:
    """`results`: where `doc` is kept, relative to the repository; `scale`, `heavy`,
    `tilelang`: the newest figures of bench/scale, bench/heavy/run and
    bench/tilelang/run kept in bench/results, if any."""
    cases = doc["cases"]
    tools = doc["options"]["tools"]
    m = doc["machine"]
    per_case = [(case, ratios(case)) for case in cases]
    lines = [
        "# Benchmarks: autodd against `python -m tilelang.autodd`",
        "",
        "Generated by `bench/run` (do not edit by hand); raw figures in"
        f" `{results}`.",
        "",
        f"Machine: {m['cores']} cores, {m['cpu']}, {m['os']}; {m['python']}; Node {m['node']}."
        f" Run on {doc['date']}: {len(cases)} cases, {len(tools)} tools,"
        f" budget {doc['options']['budget_s']:g} s per autodd run and"
        f" {doc['options'].get('ref_budget_s', doc['options']['budget_s']):g} s per reference run,"
        f" per-candidate timeout {doc['options']['timeout_s']} s,"
        f" {doc['total_s'] / 60:.1f} minutes in all.",
        "",
        _cache_note(cases),
        "",
        "Tools: `autodd-runner` (`--backend runner -j 1`), `autodd-subproc` (`--backend subproc -j 1`),"
        " `autodd-runner-j2` (`--backend runner -j 2`), `ref-runner` and `ref-subproc`"
        " (tilelang 0.1.15 `tilelang/autodd.py` with `--backend runner|subproc -j 1`, run by"
        " `bench/harness/ref_counting.py`, which counts its calls that run a candidate)."
        + _repeat_note(doc["options"].get("repeat", 1)),
        "",
        "## Summary",
        "",
        "autodd (`runner`, `-j 1`) divided by the reference's best backend on the case (the one"
        " whose result reproduces with the fewest tokens). Lower is better, except the speedup.",
        "",
        "| measure | median | worst | cases | goal | met |",
        "| --- | ---: | ---: | ---: | --- | --- |",
    ]
    lines += _summary_rows(per_case)
    lines += [
        "",
        "Tokens compare the final programs as they are, budget or not. Runs and time compare"
        " only on cases where autodd finished within the budget; a reference run stopped at"
        " the budget counts with the runs and time it had used, so those ratios are upper"
        " bounds. "
        + _reference_notes(cases),
        "",
        "## Per case",
        "",
        "Marks: `†` stopped at the time budget (the result is the best program written by then);"
        " `✗` the result does not reproduce when run with `python3` on its own; `—` no result"
        " (the tool never accepted a candidate, so it wrote no output file); `crash` the tool"
        " stopped with an error before writing any output (see the notes under the summary).",
        "",
    ]
    for title, key, fmt in (
        ("Final size in Python tokens", "tokens", "{:d}"),
        ("Final size in bytes", "bytes", "{:d}"),
        ("Final size in AST nodes", "nodes", "{:d}"),
        ("Oracle runs (candidates run)", "runs", "{:d}"),
        ("Wall time (s)", "wall_s", "{:.1f}"),
    ):
        lines += _case_table(title, key, fmt, cases, tools)
    lines += _ratio_table(per_case)
    if any(t in PEERS for t in tools):
        lines += _peer_section(cases, tools, doc["options"])
    if scale:
        lines += _scale_section(scale)
    if heavy:
        lines += _kept_section("Heavy candidates: `-j 2` and a launcher", "bench/heavy/run", heavy,
                               heavy_tables(heavy["results"]))
    if tilelang:
        lines += _kept_section("Real tilelang kernels", "bench/tilelang/run", tilelang,
                               tilelang_tables(tilelang["results"]))
    lines += [
        "## Cases",
        "",
        "| case | lines | failure substring | what it is |",
        "| --- | ---: | --- | --- |",
    ]
    for case in cases:
        lines.append(f"| {case['name']} | {case['original']['lines']} | `{case['msg']}` | {case['description']} |")
    lines += [
        "",
        "## Reproducing",
        "",
        "```sh",
        "bench/run                                  # every case, every tool",
        "bench/run --cases lexer_calc,tile_gemm --tools autodd-runner,ref-subproc --budget 60",
        "bench/run --cached-reference-only          # autodd fresh, the reference from the cache",
        "bench/run --fresh-reference --ref-budget 900   # re-run the reference too",
        "```",
        "",
        "The first run creates `bench/.cache/venv` (with `typing_extensions`), downloads the"
        " tilelang 0.1.15 wheel with `pip download --no-deps` and extracts only"
        " `tilelang/autodd.py` into `bench/.cache/reference/`. Tokens are counted with"
        " `tokenize` without NL, NEWLINE, INDENT, DEDENT, COMMENT, ENCODING and ENDMARKER;"
        " AST nodes with `ast.walk`. A result reproduces when `python3 RESULT` (a fresh"
        " process, with the reference on `PYTHONPATH` so `from tilelang.autodd import"
        " __freeze__` resolves) prints the failure substring on stdout or stderr. Both tools"
        " run `python3` from the venv (a real interpreter, not a version-manager shim).",
        "",
    ]
    # An empty note leaves a run of blank lines.
    return "\n".join(lines).replace("\n\n\n\n", "\n\n")


def _peer_section(cases, tools, options):
    per_case = [(case, peer_ratios(case)) for case in cases]
    budget = options.get("peer_budget_s")
    lines = [
        "## Against the peers",
        "",
        "The reducers a user could pick instead, each with the same interestingness test"
        " (`python3` on the file, the failure substring in stdout or stderr, the same"
        " per-candidate timeout; `bench/harness/interesting.py`) and its calls counted:"
        " pysource-minimize 0.11.0 (its Python API, `bench/harness/pysource_minimize_driver.py`),"
        " C-Vise (Debian's, `--not-c`) and shrinkray (`--no-llm`, one test at a time)."
        + (f" Budget {budget:g} s per peer run." if budget else "")
        + " Peers do not know freeze markers: sizes below count out the frozen code a result"
        " kept (and autodd's markers), and `❄` marks a result that dropped frozen code.",
        "",
        "| measure | median | worst | cases | goal | met |",
        "| --- | ---: | ---: | ---: | --- | --- |",
    ]
    for label, key, worst, goal, met in (
        ("final tokens, autodd / smallest peer (frozen code counted out)", "tokens", max,
         "≤ 1 on every case, median ≤ 0.85", lambda med, w: w <= 1.0 and med <= 0.85),
        ("wall time, autodd (runner -j1) / the peer with the smallest result", "time", max,
         "median ≤ 0.1", lambda med, w: med <= 0.1),
    ):
        med, bad, n = _stats([r.get(key) for _, r in per_case], worst)
        if n == 0:
            lines.append(f"| {label} | – | – | 0 | {goal} | – |")
        else:
            lines.append(f"| {label} | {med:.2f} | {bad:.2f} | {n} | {goal} | {'yes' if met(med, bad) else 'no'} |")
    lines += ["", "### Final size in Python tokens, frozen code counted out", "",
              "| case | " + " | ".join(tools) + " | smallest peer | autodd / peer |",
              "| --- | " + " | ".join("---:" for _ in tools) + " | --- | ---: |"]
    for case, r in per_case:
        cells = []
        for t in tools:
            run = case["tools"].get(t)
            if run is None or run.get("frozen") is None:
                cells.append(_cell(run, "tokens", "{:d}"))
                continue
            text = _cell({**run, "tokens": unfrozen_tokens(run)}, "tokens", "{:d}")
            if run["frozen"].get("dropped"):
                text += " ❄"
            cells.append(text)
        peer = r.get("peer", "none") + (" †" if r.get("peer_over_budget") else "")
        ratio = "–" if r.get("tokens") is None else f"{r['tokens']:.2f}"
        lines.append(f"| {case['name']} | " + " | ".join(cells) + f" | {peer} | {ratio} |")
    return lines + [""]


def _stats(values, worst):
    values = [v for v in values if v is not None]
    if not values:
        return None, None, 0
    return statistics.median(values), worst(values), len(values)


def _summary_rows(per_case):
    rows = []
    specs = (
        ("final tokens, autodd / reference", "tokens", max, "≤ 1 on every case, median ≤ 0.75",
         lambda med, w: w <= 1.0 and med <= 0.75),
        ("oracle runs, autodd / reference", "runs", max, "median ≤ 0.5", lambda med, w: med <= 0.5),
        ("wall time (runner -j1), autodd / reference", "time", max, "median ≤ 0.3", lambda med, w: med <= 0.3),
        ("speedup of -j 2 over -j 1 (autodd runner)", "speedup_j2", min, "median ≥ 1.6", lambda med, w: med >= 1.6),
        ("engine share of autodd's wall time (engine time outside Python runs)", "engine_share", max, "≤ 5%",
         lambda med, w: w <= 0.05),
        ("all engine calls, overlapped with runs or not, / wall time", "engine_calls_share", max, "(information)",
         None),
    )
    for label, key, worst, goal, met in specs:
        med, bad, n = _stats([r.get(key) for _, r in per_case], worst)
        if n == 0:
            rows.append(f"| {label} | – | – | 0 | {goal} | – |")
            continue
        pct = key.startswith("engine")
        show = (lambda v: f"{v * 100:.1f}%") if pct else (lambda v: f"{v:.2f}")
        verdict = "–" if met is None else ("yes" if met(med, bad) else "no")
        rows.append(f"| {label} | {show(med)} | {show(bad)} | {n} | {goal} | {verdict} |")
    wins = sum(1 for _, r in per_case if r.get("tokens") is not None and r["tokens"] <= 1.0)
    counted = sum(1 for _, r in per_case if r.get("tokens") is not None)
    rows.append(f"| cases where autodd's tokens ≤ the reference's | {wins} of {counted} | | | all | "
                f"{'yes' if counted and wins == counted else 'no'} |")
    return rows


def _reference_notes(cases) -> str:
    notes = []
    for name in REFERENCES:
        failed = [c["name"] for c in cases if name in c["tools"] and not c["tools"][name]["reproduces"]]
        if failed:
            notes.append(f"`{name}` did not reproduce on {len(failed)} case(s): {', '.join(failed)}.")
    ours = [c["name"] for c in cases for t in c["tools"] if t.startswith("autodd") and not c["tools"][t]["reproduces"]]
    if ours:
        notes.append(f"autodd did not reproduce on: {', '.join(sorted(set(ours)))}.")
    for c in cases:
        for name, run in c["tools"].items():
            if run["status"] == "crashed":
                tail = [l for l in run.get("log_tail", "").splitlines() if l.strip()]
                notes.append(f"`{name}` crashed on {c['name']}: `{tail[-1].strip() if tail else 'no output'}`.")
    none = [c["name"] for c in cases if best_reference(c) is None]
    if none:
        notes.append(f"No reference backend reproduced on {', '.join(none)}: those cases have no ratio.")
    return " ".join(notes)


def _cache_note(cases) -> str:
    """Which reference runs were reused from bench/runs (see harness/refcache.py)."""
    reused = {}
    missing = []
    for c in cases:
        for name in REFERENCES:
            run = c["tools"].get(name)
            if run is None:
                missing.append(f"{name} on {c['name']}")
            elif run.get("measured_on"):
                reused.setdefault(run["measured_on"], []).append(f"{name} on {c['name']}")
    notes = []
    if reused:
        dates = ", ".join(f"{date} ({len(runs)})" for date, runs in sorted(reused.items()))
        notes.append(
            "Reference runs are deterministic in what they do and take 1 to 10 minutes each,"
            " so `bench/run` reuses an earlier run of the same reference on the same case,"
            " budget, timeout, Python and core count from `bench/runs/`"
            f" (`--fresh-reference` re-runs them). Reused here, by the day they ran: {dates}."
            " Their wall times come from that run, while other work may have shared the"
            " machine, so the time ratios are approximate; runs and sizes do not depend on it.")
    if missing:
        notes.append(f"Not run (`--cached-reference-only`, no cached run): {', '.join(missing)}.")
    return " ".join(notes)


def _cell(run, key: str, fmt: str) -> str:
    if run is None:
        return "not run"

    failed = {"no result": "—", "crashed": "crash"}.get(run["status"])
    if failed and key not in ("runs", "wall_s"):
        return failed
    value = run.get(key)
    text = "–" if value is None else fmt.format(value)
    if run["over_budget"]:
        text += " †"
    if run["status"] == "not reproduced":
        text += " ✗"
    elif failed:
        text += f" ({failed})"
    return text


def _case_table(title, key, fmt, cases, tools):
    lines = [f"### {title}", "", "| case | original | " + " | ".join(tools) + " |",
             "| --- | ---: | " + " | ".join("---:" for _ in tools) + " |"]
    for case in cases:
        original = case["original"].get(key)
        cells = [_cell(case["tools"].get(t), key, fmt) for t in tools]
        lines.append(f"| {case['name']} | {'' if original is None else original} | " + " | ".join(cells) + " |")
    return lines + [""]


def _ratio_table(per_case):
    lines = ["### Ratios per case", "",
             "| case | best reference | tokens | runs | time | -j2 speedup | engine share | engine calls |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |"]
    lines.insert(2, "`≈`: a -j1 or -j2 run stopped at the budget, so the speedup is how much sooner -j 2"
                    " reached the smallest size both runs reached (from autodd's accepted steps).")
    lines.insert(3, "")
    for case, r in per_case:
        def f(key, pct=False):
            v = r.get(key)
            return "–" if v is None else (f"{v * 100:.1f}%" if pct else f"{v:.2f}")
        ref = r.get("reference", "none")
        if r.get("reference_over_budget"):
            ref += " †"
        speedup = ("≈" if r.get("speedup_estimated") else "") + f("speedup_j2")
        lines.append(f"| {case['name']} | {ref} | {f('tokens')} | {f('runs')} | {f('time')} | "
                     f"{speedup} | {f('engine_share', True)} | {f('engine_calls_share', True)} |")
    return lines + [""]


def _scale_section(scale: dict) -> list:
    """The cost against the program's size: a table, and for each shape a chart of the
    engine's milliseconds per candidate against the generated program's size."""
    runs = scale["runs"]
    lines = [
        "## Cost against the program's size",
        "",
        f"`bench/scale` on {scale['date']} (budget {scale['budget_s']:g} s per run, `--backend runner -j 1`"
        + (f"; {scale['note']}" if scale.get("note") else "") + "):"
        " programs that `bench/gen_large.py` generates at each size (small functions each called once,"
        " a class hierarchy, a data table, one long line of integers; `line`'s size counts five"
        " integers per line). `†`: stopped at the budget.",
        "",
        "| shape | size | bytes | lines left | tokens left | wall (s) | first accept (s) | candidates"
        " | engine ms / candidate |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in runs:
        wall = f"{r['wall_s']}{' †' if r['over_budget'] else ''}"
        lines.append(f"| {r['shape']} | {r['size']} | {r['bytes']} | {r['left_lines']} | {r['left_tokens']}"
                     f" | {wall} | {r['first_accept_s']} | {r['candidates']} | {r['engine_ms_per_candidate']} |")
    lines.append("")
    for shape in dict.fromkeys(r["shape"] for r in runs):
        # The runs with a figure (a program that did not reproduce has none).
        mine = sorted((r for r in runs if r["shape"] == shape and r["engine_ms_per_candidate"] is not None),
                      key=lambda r: r["size"])
        if len(mine) < 2:
            continue
        sizes = ", ".join(f'"{r["size"]:,}"' for r in mine)
        values = ", ".join(f"{r['engine_ms_per_candidate']}" for r in mine)
        top = max(r["engine_ms_per_candidate"] for r in mine)
        lines += [
            "```mermaid",
            "xychart-beta",
            f'    title "{shape}: engine ms per candidate"',
            f"    x-axis \"size (lines)\" [{sizes}]",
            f'    y-axis "ms" 0 --> {max(1, round(top * 1.2, 1))}',
            f"    line [{values}]",
            "```",
            "",
        ]
    return lines


def _kept_section(title: str, script: str, kept: dict, tables: list) -> list:
    m = kept["machine"]
    return [f"## {title}", "",
            f"`{script}` on {kept['date']} (autodd {kept['autodd']['commit']}; {m['cores']} cores, {m['cpu']}):",
            "", *tables, ""]


def heavy_tables(results: list) -> list:
    """bench/heavy/run's table and the ratios the launcher issue sets goals for."""
    lines = ["| case | run | wall (s) | candidates | ms per candidate | cores busy | tokens left | same result |",
             "| --- | --- | ---: | ---: | ---: | ---: | ---: | --- |"]
    for r in results:
        per = round(1000 * r["wall_s"] / r["runs"], 1) if r["runs"] else None
        lines.append(f"| {r['case']} | {r['config']} | {r['wall_s']} | {r['runs']} | {per} | {cores(r) or '–'} | "
                     f"{r['tokens']} | {'yes' if r['same_result'] else 'NO'} |")
    lines.append("")
    for case in dict.fromkeys(r["case"] for r in results):
        by = {r["config"]: r for r in results if r["case"] == case}
        if "-j 1" in by and "-j 2" in by:
            one, two = by["-j 1"], by["-j 2"]
            lines.append(f"- {case}: -j 2 is {one['wall_s'] / two['wall_s']:.2f}× as fast as -j 1")
            lines += paired(case, "-j 2 against -j 1", one, two)
            if "stale_s" in two and "counted_s" in one:
                lines.append(
                    f"- {case}, where -j 2's job time went: the runs that counted took {two['counted_s']} s "
                    f"({two['counted_s'] / one['counted_s']:.2f}× the same runs at -j 1); {two['stale_runs']} runs "
                    f"that went stale took {two['stale_s']} s (the accepted runs took {two['accepted_s']} s); "
                    f"outside the search {two['outside_search_s']} s (-j 1: {one['outside_search_s']} s). Without "
                    f"the stale runs -j 2 would be {one['wall_s'] / (two['wall_s'] - two['stale_s'] / 2):.2f}× "
                    "as fast as -j 1")
            if cores(one) and cores(two):
                # wall 1 / wall 2 = (cores busy 2 / cores busy 1) / (CPU 2 / CPU 1).
                work = two["cpu_s"] / one["cpu_s"]
                lines.append(
                    f"- {case}, in CPU time: -j 1 kept {cores(one)} cores busy (each candidate's process is forked, "
                    f"isolated and compiled ahead on the second core), -j 2 {cores(two)}; -j 2 spent {work:.2f}× "
                    f"-j 1's CPU time ({one['cpu_s']} s, the whole machine's). -j 2's speed-up is the ratio of cores "
                    f"busy over that of CPU time; with both cores busy it could reach "
                    f"{2 / cores(one) / work:.2f}×")
            if one.get("counted_s"):
                # While an accepted run goes on, what the other job runs was mostly made
                # on the assumption that it fails: about the most -j 2 can do is to halve
                # the other runs.
                total, accepted = one["counted_s"], one["accepted_s"]
                lines.append(
                    f"- {case}: keeping -j 1's order, about {2 * total / (total + accepted):.2f}× is the most -j 2 can "
                    f"reach on this search (its runs took {total} s at -j 1, the accepted ones {accepted} s; the "
                    "other job's work during an accepted run mostly goes stale: 2 × all / (all + accepted))")
            if "odds_share" in one:
                # Betting on a long run's acceptance (running the candidates made on
                # the assumption that it succeeds) pays only above even odds.
                tells = "tells" if one["odds_share"] > 0.5 else "does not tell"
                lines.append(
                    f"- {case}: how long a run has gone on {tells} that it will be accepted (betting on that pays "
                    f"above even odds): of the -j 1 runs that outlasted a multiple of their best program's run, at "
                    f"most {one['odds_share']:.0%} were (the {one['odds_runs']} longer than {one['odds_after']}×)")
        for config, how in (("-j 2 ssh", "through ssh"), ("-j 2 ssh shared", "through one shared ssh connection")):
            if "-j 2" not in by or config not in by:
                continue
            here, there = by["-j 2"], by[config]
            lines.append(f"- {case}: -j 2 {how} runs at {here['wall_s'] / there['wall_s']:.2f}× the speed of -j 2 "
                         f"here (outside the search {there.get('outside_search_s')} s, here "
                         f"{here.get('outside_search_s')} s)")
            lines += paired(case, f"-j 2 {how} against -j 2 here", here, there)
        if {"-j 2 subproc", "-j 2 subproc ssh", "-j 2 subproc ssh, launched when due"} <= by.keys():
            here, ahead, due = by["-j 2 subproc"], by["-j 2 subproc ssh"], by["-j 2 subproc ssh, launched when due"]
            lines.append(f"- {case}, --backend subproc through ssh: launching each candidate ahead makes -j 2 "
                         f"{due['wall_s'] / ahead['wall_s']:.2f}× as fast as launching it when due, and "
                         f"{here['wall_s'] / ahead['wall_s']:.2f}× the speed of -j 2 subproc here "
                         f"(when due: {here['wall_s'] / due['wall_s']:.2f}×)")
            lines += paired(case, "-j 2 subproc through ssh, ahead against when due", due, ahead)
    return lines


def cores(run: dict):
    """How many cores the whole machine kept busy on average during `run`, or None
    where its CPU time was not measured."""
    return round(run["cpu_s"] / run["wall_s"], 2) if run.get("cpu_s") and run["wall_s"] else None


def paired(case: str, what: str, slow: dict, fast: dict) -> list:
    """The speed-up pass by pass: the runs of one pass ran minutes apart at most, so
    their ratio holds where the machine's own speed drifts between passes."""
    ratios = [a / b for a, b in zip(slow.get("walls", []), fast.get("walls", [])) if b]
    if len(ratios) < 2:
        return []
    listed = ", ".join(f"{r:.2f}×" for r in ratios)
    return [f"- {case}, {what} pass by pass: {listed} (median {statistics.median(ratios):.2f}×)"]


def tilelang_tables(results: list) -> list:
    """bench/tilelang/run's table and its ratios against the reference."""
    lines = ["| case | tool | tokens (of original) | bytes | fails with MSG | runs | timeouts | wall (s) |",
             "| --- | --- | ---: | ---: | --- | ---: | ---: | ---: |"]
    for r in results:
        wall = f"{r['wall_s']}{' †' if r['over_budget'] else ''}"
        lines.append(f"| {r['case']} | {r['tool']} | {r['tokens']} ({r['original_tokens']}) | {r['bytes']} | "
                     f"{'yes' if r['fails_with_msg'] else 'NO'} | {r['runs']} | {r['timeouts']} | {wall} |")
    lines.append("")
    for case in dict.fromkeys(r["case"] for r in results):
        by = {r["tool"]: r for r in results if r["case"] == case}
        one, two, ref = by.get("autodd-j1"), by.get("autodd-j2"), by.get("ref-j1")
        if one and ref and ref["wall_s"] and one["tokens"] is not None and ref["tokens"] is not None:
            lines.append(f"- {case}: autodd -j 1 / reference: tokens {one['tokens']} / {ref['tokens']}, "
                         f"wall time {one['wall_s'] / ref['wall_s']:.2f}×")
        if one and two and two["wall_s"]:
            lines.append(f"- {case}: autodd -j 2 is {one['wall_s'] / two['wall_s']:.2f}× as fast as -j 1")
        for jobs in (1, 2):
            huge, small = by.get(f"autodd-j{jobs}"), by.get(f"autodd-j{jobs}-4k")
            if huge and small and huge["wall_s"]:
                lines.append(f"- {case}: autodd -j {jobs} is {small['wall_s'] / huge['wall_s']:.2f}× as fast as "
                             f"with --no-huge-pages (the worker's heap in 4 KiB pages)")
            warm = by.get(f"autodd-j{jobs}-warm")
            if huge and warm and warm["wall_s"]:
                lines.append(f"- {case}: autodd -j {jobs} with --warm-up warm_up.py is "
                             f"{huge['wall_s'] / warm['wall_s']:.2f}× as fast as without")
        warm, ref = by.get("autodd-j1-warm"), by.get("ref-j1")
        if warm and ref and ref["wall_s"]:
            lines.append(f"- {case}: autodd -j 1 --warm-up / reference: wall time {warm['wall_s'] / ref['wall_s']:.2f}×")
    return lines
