"""FSDP2 with per-block compile on two GPUs over NCCL, Inductor (issue 36): the gloo corpus's program
(tests/fsdp/programs/per_block.py) under plain torchrun and under `tdiag run --nproc-per-node 2`.

    NCCL_NVLS_ENABLE=0 python benchmarks/gpu_fsdp2_nccl.py [--out DIR]      # about 5-7 minutes on two H200s

What it collects, as CHECK lines and figures (and the per-rank HTML reports in --out, default $OUT or /tmp/out):
- torch's own counters per rank identical with and without tdiag (the differential harness, scripts/differential.py),
  for per-block compile and fullgraph blocks;
- the findings, each marked by design or fixable (per-block compile: RCP006 by design, no break);
- communication per rank apart from compute: the window's `communication` part, and the collectives per kind (calls,
  NCCL kernel time on the device);
- GPU idle time per rank (the window minus the device's busy time);
- the per-rank view (analyzer/rank_view.py: what the HTML heat map and the TUI's Ranks screen draw) and its outliers;
- step time with and without tdiag: each rank's own step times (STEP_TIMES, loss.item() syncing the device), median
  of the steps after tdiag's measured window (40 steps; the window is steps 3-22).
A whole model compiled with fullgraph=True stops at FSDP2's hooks (CRS001 with the per-block fix), as on gloo.
Exits 1 if a check failed; skips (exit 0) with a line saying so when fewer than 2 GPUs are visible.
Written for torch 2.11 / Triton 3.6 / Python 3.12 with no network; not run in the session that wrote it.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "scripts"))
PROGRAM = REPO / "tests" / "fsdp" / "programs" / "per_block.py"
WIDTH = "1024"  # 4 blocks of 1024 -> 2048 -> 1024 Linear layers: 8 MiB of fp32 parameters per block
FAILURES: list[str] = []
DRY_RUN = {"on": False}  # --cpu-dry-run: the same steps on gloo with aot_eager, to check this script without GPUs


def check(name: str, ok: bool, detail: str = "") -> None:
    print(f"CHECK {name}: {'PASS' if ok else 'FAIL'} {detail}".rstrip(), flush=True)
    if not ok:
        FAILURES.append(name)


def environment(mode: str, **extra: str) -> None:
    os.environ.update(BACKEND="inductor", DIST_BACKEND="nccl", MODE=mode, WIDTH=WIDTH, NCCL_NVLS_ENABLE="0", **extra)
    if DRY_RUN["on"]:
        os.environ.update(BACKEND="aot_eager", DIST_BACKEND="gloo", WIDTH="64")


def differential(mode: str, work: Path, cache: Path):
    """(plain outcome, tdiag outcome, record dir) of the program in ``mode`` on 2 ranks."""
    from differential_harness.compare import compare
    from differential_harness.corpus import load
    from differential_harness.execute import run
    from differential_harness.modes import MODES, PLAIN

    environment(mode, STEPS="30")
    program = dataclasses.replace(load(PROGRAM), nproc=2, timeout=400)
    started = time.perf_counter()
    plain = run(program, PLAIN, False, work / mode, cache)
    under = run(program, MODES["run"], False, work / mode, cache)
    differences = compare(plain, under).differences
    check(f"{mode}: torch's counters identical with and without tdiag", plain.exit_code == under.exit_code
          and len(plain.counters) == 2 and not differences,
          f"exit {plain.exit_code}/{under.exit_code}, {len(plain.counters)} ranks; {differences[:3]}")
    print(f"  {mode}: plain {plain.seconds:.0f} s, tdiag {under.seconds:.0f} s (both with compiles), "
          f"{time.perf_counter() - started:.0f} s in all")
    for role, counters in sorted(plain.counters.items()):
        print(f"  {role}: recompiles {counters['recompiles']}, breaks {sum(counters['graph_break'].values())}, "
              f"unique graphs {counters['stats'].get('unique_graphs')}")
    (record,) = (work / mode).glob("per_block-run-*/record")
    return plain, under, record


def findings(a) -> None:
    for f in a.findings:
        kind = "by design" if f.by_design else ("info" if f.severity == "info" else "fixable")
        print(f"  {f.code} {f.severity} [{kind}] {f.path}:{f.line} ranks {dict(f.ranks)}: {f.message[:160]}")
        print(f"      fix: {f.fix[:200]}")


def per_rank(a) -> None:
    runtime = a.summary.runtime
    if runtime is None or runtime.status != "measured":
        check("runtime window measured", False, runtime.reason if runtime else "no runtime event")
        return
    for rank, w in sorted(runtime.per_rank.items(), key=lambda kv: int(kv[0])):
        steps = w["steps"] or 1
        parts = {k: round(v / steps * 1e3, 3) for k, v in (w.get("eager_parts") or {}).items()}
        busy = w.get("device_busy_s")
        idle = None if busy is None else max(w["window_s"] - busy, 0.0) / steps * 1e3
        print(f"  rank {rank}: step {w['window_s'] / steps * 1e3:.3f} ms (window of {w['steps']} steps), compiled "
              f"{w['compiled_s'] / steps * 1e3:.3f} ms, eager parts ms/step {parts}")
        print(f"  rank {rank}: GPU busy {'-' if busy is None else f'{busy / steps * 1e3:.3f}'} ms/step, idle "
              f"{'-' if idle is None else f'{idle:.3f}'} ms/step"
              + ("" if idle is None else f" ({idle / (w['window_s'] / steps * 1e3):.0%})"))
        for kind, c in sorted((w.get("collectives") or {}).items()):
            print(f"  rank {rank}: {kind}: {c['calls'] / steps:.1f} calls/step, issue {c['issue_s'] / steps * 1e3:.3f} "
                  f"ms/step, backend run {c['run_s'] / steps * 1e3:.3f} ms/step")
        check(f"rank {rank}: communication measured apart from compute",
              parts.get("communication", 0) > 0 or any(c["run_s"] > 0 for c in (w.get("collectives") or {}).values()),
              f"communication {parts.get('communication')} ms/step")
        if not DRY_RUN["on"]:
            check(f"rank {rank}: GPU busy time measured", busy is not None and busy > 0, f"{busy}")


def rank_heat_map(a, out: Path, name: str) -> None:
    from tdiag.analyzer.rank_view import rank_view
    from tdiag.reports.html import write_html

    view = rank_view(a)
    for row in view.rows:
        print(f"  per-rank view: rank {row.rank} on {row.host}: {row.values}")
    print(f"  outliers: {[o.text() for o in view.outliers] or 'none'}")
    write_html(a, out / f"{name}.html")
    print(f"  HTML report (per-rank heat map under Ranks): {out / f'{name}.html'}")


def step_times(work: Path, cache: Path) -> None:
    """Each rank's own step times, 40 steps, plain torchrun and tdiag run; the median of steps 30-39."""
    environment("blocks", STEPS="40", TORCHINDUCTOR_CACHE_DIR=str(cache))
    medians = {}
    for label, launcher in (
        ("plain", [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2"]),
        ("tdiag", [sys.executable, "-m", "tdiag", "run", "--no-tui", "-o", str(work / "timed"), "--nproc-per-node", "2"]),
    ):
        prefix = work / f"times-{label}"
        done = subprocess.run([*launcher, str(PROGRAM)], cwd=PROGRAM.parent, capture_output=True, text=True,
                              timeout=400, env={**os.environ, "STEP_TIMES": str(prefix)})
        check(f"step times: {label} run exits 0", done.returncode == 0, done.stderr[-400:] if done.returncode else "")
        for rank in (0, 1):
            path = Path(f"{prefix}.rank{rank}.json")
            if path.exists():
                times = json.loads(path.read_text())
                medians[(label, rank)] = statistics.median(times[30:]) * 1e3
    for rank in (0, 1):
        plain, under = medians.get(("plain", rank)), medians.get(("tdiag", rank))
        if plain and under:
            print(f"  rank {rank}: step {plain:.3f} ms plain, {under:.3f} ms under tdiag ({under / plain:.3f}x), "
                  "median of steps 30-39")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", type=Path, default=Path(os.environ.get("OUT", "/tmp/out")))
    parser.add_argument("--cpu-dry-run", action="store_true", help="gloo and aot_eager on the CPU: checks the script")
    args = parser.parse_args()
    DRY_RUN["on"] = args.cpu_dry_run
    args.out.mkdir(parents=True, exist_ok=True)
    import torch

    print(f"torch {torch.__version__}, {torch.cuda.device_count()} GPU(s), NCCL_NVLS_ENABLE="
          f"{os.environ.get('NCCL_NVLS_ENABLE')}", flush=True)
    if torch.cuda.device_count() < 2 and not args.cpu_dry_run:
        print("SKIP: fewer than 2 GPUs visible")
        return 0
    from tdiag.analyzer import build

    with tempfile.TemporaryDirectory() as d:
        work, cache = Path(d), Path(d) / "inductor-cache"
        for mode in ("blocks", "fullgraph"):
            print(f"=== {mode} ({time.strftime('%T')})", flush=True)
            _, _, record = differential(mode, work, cache)
            a = build(record)
            findings(a)
            rcp = [f for f in a.findings if f.code.startswith("RCP")]
            check(f"{mode}: the per-block requires_grad recompile is by design",
                  len(rcp) == 1 and rcp[0].by_design and rcp[0].ranks == {0: 1, 1: 1},
                  f"{[(f.code, f.by_design, f.ranks) for f in rcp]}")
            check(f"{mode}: no graph break", not [f for f in a.findings if f.family == "BRK"])
            per_rank(a)
            rank_heat_map(a, args.out, f"fsdp2_{mode}")
        print(f"=== whole-fullgraph ({time.strftime('%T')})", flush=True)
        environment("whole-fullgraph", STEPS="4", TORCHINDUCTOR_CACHE_DIR=str(cache))
        done = subprocess.run([sys.executable, "-m", "tdiag", "run", "--no-tui", "-o", str(work / "wfg"),
                               "--nproc-per-node", "2", str(PROGRAM)], cwd=PROGRAM.parent, capture_output=True,
                              text=True, timeout=300)
        crs = [f for f in build(work / "wfg").findings if f.code == "CRS001"]
        check("whole-fullgraph: stops at FSDP2's hooks with the per-block fix", done.returncode != 0 and bool(crs)
              and all("FSDP2's hook" in f.message and "block.compile(fullgraph=True)" in f.fix for f in crs),
              f"exit {done.returncode}, {len(crs)} CRS001")
        print(f"=== step time with and without tdiag ({time.strftime('%T')})", flush=True)
        step_times(work, cache)
    print(f"ALL {'PASS' if not FAILURES else 'FAIL: ' + ', '.join(FAILURES)}")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
