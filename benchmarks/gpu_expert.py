"""The expert's speed on one GPU, in one call: tdiag's measured step under CUDA graphs, `tdiag fix`'s step-time
patches on GPT-2 and the MLP, and the five figures per ceiling program (as written, tdiag's rounds, hand-fixed,
expert, eager).

    python benchmarks/gpu_expert.py                          # every phase, inside BUDGET_S (~9 minutes)
    python benchmarks/gpu_expert.py --phases figures --programs train_example,gnn_train,lightning_train,bert_train
    python benchmarks/gpu_expert.py --phases figures --programs peft_train,unet_step      # further calls

Phases, in this order, each writing to $OUT (or ./gpu-expert-out) as it goes (`results.jsonl`, one line per item,
the records and `tdiag fix` answers beside it) and printing `CHECK` lines:

1. ``window``: `tdiag run` of mlp_train_expert.py and gpt2_train_expert.py (mode="reduce-overhead", compiled
   optimizer) next to the program's own timer: tdiag's step (the steps it timed after the window without the
   profiler; the window's mean beside it) within 15% of the program's steady step; the window's compile and CUDA-graph recording time, named; RUN002 does
   not advise what is already on.
2. ``fix``: `tdiag fix --verify --apply --repeat 2` on gpt2_train.py and mlp_train.py (``--fix-programs``), one
   after another, each stopped at FIX_BUDGET_S (the issue's goal: GPT-2's whole fix flow within 300 s); the
   patches kept, by kind, and each measured set's run times.
3. ``figures``: each version of each program once (gpt2_train and mlp_train first, with tdiag's rounds from phase
   2), cheapest first, as many as fit the budget left; the table and a CHECK per program (tdiag's share of the
   expert's gain; never PASS when the compiled step is no faster than eager).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_ceiling  # noqa: E402
import gpu_ceiling  # noqa: E402

BUDGET_S = 530
FIX_BUDGET_S = 300
WINDOW_PROGRAMS = ("mlp_train_expert", "gpt2_train_expert")
FIX_PROGRAMS = ("gpt2_train", "mlp_train")
TOLERANCE = 0.15  # tdiag's step against the program's own
CUDA = ["--device", "cuda", "--backend", "inductor"]


class Results:
    """Append-only results under $OUT: a JSON line per item, flushed, so a call cut short keeps what it measured."""

    def __init__(self, out: Path):
        self.out = out
        out.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()

    def add(self, kind: str, **data) -> None:
        with self._lock, open(self.out / "results.jsonl", "a") as f:
            f.write(json.dumps({"kind": kind, "t": round(time.time(), 1), **data}, default=str) + "\n")

    def check(self, name: str, ok: bool | None, detail: str) -> None:
        verdict = "SKIP" if ok is None else "PASS" if ok else "FAIL"
        print(f"CHECK {name}: {verdict} {detail}", flush=True)
        self.add("check", name=name, verdict=verdict, detail=detail)


def window_phase(results: Results, deadline: float) -> None:
    for name in WINDOW_PROGRAMS:
        need = gpu_ceiling.NEEDS.get(name.removesuffix("_expert"))
        if need and importlib.util.find_spec(need) is None:
            results.check(f"window_{name}", None, f"not run: {need} is not installed")
            continue
        if deadline - time.monotonic() < 60:
            results.check(f"window_{name}", None, "not run: the budget is spent")
            continue
        record = results.out / f"record-{name}"
        timing = results.out / f"{name}.timing.json"
        env = bench_ceiling.env_for(timing)
        try:  # 64 steps: the window (2 settling steps after the last compile or recording, then 20) fits whole
            proc = bench_ceiling.run([sys.executable, "-m", "tdiag", "run", "--no-tui", "-q", "-o", str(record),
                                      "--profile-window", "20:6", f"{name}.py", *CUDA, "--steps", "64"],
                                     bench_ceiling.within(240, deadline),
                                     cwd=bench_ceiling.PROGRAMS, env=env)
        except subprocess.TimeoutExpired:
            results.check(f"window_{name}", False, "tdiag run stopped: past the budget")
            continue
        (results.out / f"{name}.run.stderr.txt").write_text(proc.stderr[-20000:])
        if proc.returncode != 0 or not timing.exists():
            results.check(f"window_{name}", False, f"exit {proc.returncode}: {proc.stderr.strip()[-400:]}")
            continue
        own = json.loads(timing.read_text())["step_s"]
        judge_window(results, name, record, own)


def judge_window(results: Results, name: str, record: Path, own_s: float) -> None:
    from tdiag.analyzer import build

    analysis = build(record)
    runtime = analysis.summary.runtime
    event = next((json.loads(line) for line in (record / "events.jsonl").read_text().splitlines()
                  if '"type": "runtime"' in line or '"type":"runtime"' in line), {})
    if runtime is None or runtime.status != "measured" or not runtime.steps:
        results.check(f"window_{name}", False, f"no measured window ({runtime.reason if runtime else 'none'})")
        return
    profiled = runtime.window_s / runtime.steps
    mean = runtime.step_s  # the steps after the window, unprofiled, where the program ran them (else the window's)
    median = statistics.median(event["step_us"]) * 1e-6 if event.get("step_us") else None
    # the settling steps just before the window, timed without the profiler (tracer/runtime_window.py)
    unprofiled = event.get("unprofiled_step_us") or []
    quiet = statistics.median(unprofiled) * 1e-6 if unprofiled else None
    parts = {"compiled": runtime.compiled_s, "eager": runtime.eager_s, "guards": runtime.guard_s,
             "compile": runtime.compile_s, "recording": runtime.recording_s}
    accounted = sum(parts.values()) / runtime.window_s
    graphed = [g.compile_id for g in analysis.graphs if g.cudagraph is not None and g.cudagraph.status != "unknown"]
    run002 = [f for f in analysis.findings if f.code == "RUN002"]
    results.add("window", program=name, own_step_ms=own_s * 1e3, tdiag_mean_ms=mean * 1e3,
                profiled_mean_ms=profiled * 1e3, steady_steps=runtime.steady_steps,
                tdiag_median_ms=None if median is None else median * 1e3, steps=runtime.steps,
                unprofiled_median_ms=None if quiet is None else quiet * 1e3, unprofiled_steps=len(unprofiled),
                partial=runtime.partial, parts_ms_per_step={k: v / runtime.steps * 1e3 for k, v in parts.items()},
                eager_parts=runtime.eager_parts,
                device_busy_ms_per_step=(runtime.device_busy_s or 0) / runtime.steps * 1e3,
                accounted=accounted, cudagraph_graphs=graphed, run002=[f.message + " | fix: " + f.fix for f in run002],
                findings=[f"{f.code} {f.path}:{f.line} {f.message[:160]}" for f in analysis.findings])
    off = mean / own_s - 1
    results.check(f"window_step_{name}", abs(off) <= TOLERANCE,
                  f"tdiag {mean * 1e3:.3f} ms/step over {runtime.steady_steps} unprofiled steps after the window "
                  f"(profiled window {profiled * 1e3:.3f}, median {median * 1e3 if median else float('nan'):.3f}; "
                  f"unprofiled {quiet * 1e3 if quiet else float('nan'):.3f} over {len(unprofiled)} steps) vs the "
                  f"program's {own_s * 1e3:.3f} ms ({off:+.0%}); {runtime.steps} steps"
                  f"{' partial' if runtime.partial else ''}; "
                  + ", ".join(f"{k} {v / runtime.steps * 1e3:.3g}" for k, v in parts.items()) + " ms/step")
    results.check(f"window_named_{name}", 0.97 <= accounted <= 1.03 and bool(graphed),
                  f"the breakdown accounts for {accounted:.0%} of the window "
                  f"(compile {runtime.compile_s * 1e3:.1f} ms, "
                  f"CUDA-graph recording {runtime.recording_s * 1e3:.1f} ms named); CUDA graphs seen on "
                  f"{len(graphed)} graph(s)")
    advises_on = [f for f in run002 if "reduce-overhead" in f.fix]
    results.check(f"run002_{name}", not advises_on,
                  (f"RUN002: {run002[0].message} | fix: {run002[0].fix}" if run002 else "no RUN002 (the GPU is busy)")
                  + (" -- advises reduce-overhead, which is on" if advises_on else ""))


def fix_phase(results: Results, deadline: float, programs: tuple[str, ...] = FIX_PROGRAMS,
              at_once: int = 1, budget: float = FIX_BUDGET_S) -> dict[str, bench_ceiling.Result]:
    """`tdiag fix` on each program, each stopped at FIX_BUDGET_S, one after another (each alone on the machine, as
    a user runs it) or ``at_once`` at a time (four at once ran each re-run 2-3x slower on the H200's 16 cores: two
    is the compromise when one call must hold several flows); the patched files kept."""
    done: dict[str, bench_ceiling.Result] = {}

    def one(name: str) -> None:
        result = bench_ceiling.Result(name, {v: [] for v in bench_ceiling.VERSIONS})
        started = time.monotonic()
        stop = min(deadline, started + budget)
        work = Path(tempfile.mkdtemp(prefix=f"tdiag-expert-{name}-"))
        # --repeat 2: a step-time patch (reduce-overhead, fused) changes no count, so only two measured runs a side
        # can show that it pays
        patched = bench_ceiling.tdiag_rounds(name, CUDA, work, result, 2, stop)
        spent = time.monotonic() - started
        if patched is not None and patched.exists():
            (results.out / f"{name}.tdiag.py").write_text(patched.read_text())
            result.patched = str(patched)
        (results.out / f"{name}.fix.json").write_text(json.dumps(result.fix, indent=1))
        kept = result.kept
        results.add("fix", program=name, seconds=round(spent, 1), rounds=result.rounds, kept=kept, left=result.left,
                    error=result.error, stopped=result.fix.get("stopped") if result.fix else None,
                    refused=[(c.get("label"), c.get("problems")) for c in (result.fix or {}).get("verification", [])
                             if c.get("kept") is False],
                    # where the fix flow's time went: each measured set's runs (the whole `tdiag run` of each)
                    run_seconds=[(c.get("round"), c.get("label"), c["before"].get("tdiag_run_s"),
                                  c["after"].get("tdiag_run_s"), c.get("kept"))
                                 for c in (result.fix or {}).get("verification", [])])
        # the levers judged by step time: CUDA graphs, the optimizer, TF32 from torch's warning (WRN001's statement)
        step_time = [k for k in kept if k.startswith(("RUN001", "RUN002", "WRN001"))]
        stopped = (result.fix or {}).get("stopped") or ""
        cut = "(--budget)" in stopped  # a round the budget left unmeasured: the flow did not finish its work
        results.check(f"fix_{name}", not result.error and spent <= budget and not cut,
                      f"{spent:.0f} s, {result.rounds} round(s){' cut by the budget' if cut else ''}, "
                      f"kept {', '.join(kept) or 'nothing'}"
                      f" (step-time patches: {', '.join(step_time) or 'none'}); left "
                      f"{','.join(sorted(result.left)) or 'none'}{'; ' + result.error if result.error else ''}")
        done[name] = result

    if at_once <= 1:
        for name in programs:
            one(name)
        return done
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=at_once) as pool:
        list(pool.map(one, programs))
    return done


def figures_phase(results: Results, deadline: float, fixed: dict[str, bench_ceiling.Result],
                  only: list[str] | None = None, versions: tuple[str, ...] = bench_ceiling.VERSIONS,
                  parallel: int = 1, runs: int = 1) -> None:
    """Each version of each program ``runs`` times, a program's versions one after another and the rounds
    interleaved (they see the same neighbours; the best run counts); with ``parallel`` > 1 that many programs at a
    time (their figures then compare within a program only)."""
    import torch

    order = [*FIX_PROGRAMS, *(n for n in gpu_ceiling.PROGRAMS if n not in FIX_PROGRAMS)]
    # programs named but in neither list (the big_* corpus) run too, in the order named
    order = [n for n in order if not only or n in only] + [n for n in only or () if n not in order]
    measured: list[bench_ceiling.Result] = []
    lock = threading.Lock()

    def one(name: str) -> None:
        need = gpu_ceiling.NEEDS.get(name)
        if need and importlib.util.find_spec(need) is None:
            results.check(f"ceiling_{name}", None, f"not run: {need} is not installed")
            return
        if deadline - time.monotonic() < 45:
            results.check(f"ceiling_{name}", None, "not run: the budget is spent")
            return
        started = time.monotonic()
        r = fixed.get(name) or bench_ceiling.Result(name, {v: [] for v in bench_ceiling.VERSIONS})
        scripts = {"before": bench_ceiling.PROGRAMS / f"{name}.py",
                   "tdiag": Path(r.patched) if r.patched and Path(r.patched).exists() else None,
                   "hand": bench_ceiling.PROGRAMS / f"{name}_fixed.py",
                   "expert": bench_ceiling.PROGRAMS / f"{name}_expert.py",
                   "eager": bench_ceiling.PROGRAMS / f"{name}.py"}
        for _ in range(runs):
            for version, script in scripts.items():
                if version not in versions or script is None or not script.exists():
                    continue
                extra = {"TORCH_COMPILE_DISABLE": "1"} if version == "eager" else None
                t = bench_ceiling.timed(script, CUDA, extra, timeout=180, deadline=deadline)
                if t is not None:
                    r.times[version].append(t)
                results.add("figure", program=name, version=version, step_ms=None if t is None else t * 1e3)
        with lock:
            measured.append(r)
        print(gpu_ceiling.check_line(r, time.monotonic() - started), flush=True)

    if parallel <= 1:
        for name in order:
            one(name)
    else:
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(parallel) as pool:
            list(pool.map(one, order))
    measured.sort(key=lambda r: order.index(r.name))
    how = (f"best of {runs} runs per version" if runs > 1 else "one run per version") + (f", {parallel} programs at a time" if parallel > 1 else "")
    table = bench_ceiling.table(measured, f"device cuda ({torch.cuda.get_device_name()}), backend inductor, {how}")
    (results.out / "table.md").write_text(table)
    print(table, flush=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=float, default=BUDGET_S)
    parser.add_argument("--phases", default="window,fix,figures", help="comma-separated: window, fix, figures")
    parser.add_argument("--programs", help="figures: only these programs (comma-separated)")
    parser.add_argument("--fix-programs", default=",".join(FIX_PROGRAMS),
                        help="fix: these programs, one after another (comma-separated)")
    parser.add_argument("--together", action="store_true", help="fix: every program's fix flow at once")
    parser.add_argument("--fix-parallel", type=int, default=1, help="fix: this many programs' flows at a time")
    parser.add_argument("--fix-budget", type=float, default=FIX_BUDGET_S, help="fix: seconds for each program's flow")
    parser.add_argument("--versions", default=",".join(bench_ceiling.VERSIONS), help="figures: these versions")
    parser.add_argument("--parallel", type=int, default=1, help="figures: this many programs at a time")
    parser.add_argument("--runs", type=int, default=1, help="figures: runs of each version, interleaved")
    parser.add_argument("--patched", type=Path,
                        help="figures: tdiag's rounds from an earlier call's fix phase (its NAME.tdiag.py files)")
    args = parser.parse_args(argv)
    import torch

    results = Results(Path(os.environ.get("OUT") or "gpu-expert-out"))
    if not torch.cuda.is_available():
        results.check("expert_gpu", False, "no CUDA device")
        return 1
    started = time.monotonic()
    deadline = started + args.budget
    phases = {p.strip() for p in args.phases.split(",")}
    fixed: dict[str, bench_ceiling.Result] = {}
    if "window" in phases:
        window_phase(results, deadline)
    if "fix" in phases:
        programs = tuple(args.fix_programs.split(","))
        fixed = fix_phase(results, deadline, programs, at_once=len(programs) if args.together else args.fix_parallel,
                          budget=args.fix_budget)
    for path in sorted(args.patched.glob("*.tdiag.py")) if args.patched else ():
        name = path.name.removesuffix(".tdiag.py")
        if name not in fixed:
            # the patched program beside the originals it imports (_timing.py)
            copy = bench_ceiling.PROGRAMS / f"{name}_tdiag_rounds.py"
            copy.write_text(path.read_text())
            fixed[name] = bench_ceiling.Result(name, {v: [] for v in bench_ceiling.VERSIONS}, patched=str(copy))
            answer = path.with_name(f"{name}.fix.json")  # the fix phase's answer beside it: its rounds in the table
            if answer.exists():
                fixed[name].read_fix(json.loads(answer.read_text()))
    if "figures" in phases:
        figures_phase(results, deadline, fixed, args.programs.split(",") if args.programs else None,
                      tuple(args.versions.split(",")), args.parallel, args.runs)
    results.check("expert_budget", time.monotonic() - started <= args.budget + 30,
                  f"{time.monotonic() - started:.0f} s of {args.budget:.0f} s (30 s more allowed: the last run's stop)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
