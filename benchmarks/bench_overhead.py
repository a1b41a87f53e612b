"""Whole-process cost of `tdiag run` against plain `python`, with TORCH_TRACE's cost measured beside it.

    python benchmarks/bench_overhead.py [--runs 5] [--program examples/clean.py ...]

Each round runs every configuration of a program once, in an order that rotates from round to round (so machine
load and cache warmth hit all alike), after one warm-up round that fills the compile caches. Reported: the median
of the per-round ratios to plain `python`, for wall time and for CPU time (user+sys of the child, what stays
meaningful on a busy machine). `tdiag run` is measured as a user in CI runs it: summary printed to a non-TTY stderr,
no TUI; `--no-profile` is the same without the runtime window (its cost is in `bench_profile_overhead.py`).
Per-step cost after compilation is zero by construction (nothing on the runtime path logs to the structured trace).
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PROGRAMS = ["examples/clean.py", "examples/train.py"]
GOAL = 1.05


def configurations(tmp: Path) -> dict[str, tuple[list[str], dict[str, str]]]:
    """name -> (command prefix before the program path, extra environment)."""
    tdiag = [sys.executable, "-m", "tdiag", "run", "--no-tui", "-o", str(tmp / "run")]
    return {
        "python": ([sys.executable], {}),
        "tdiag run": (tdiag, {}),
        "--no-profile": ([*tdiag, "--no-profile"], {}),
        "TORCH_TRACE": ([sys.executable], {"TORCH_TRACE": str(tmp / "trace")}),
    }


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user+sys of the child and anything it waited for)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=REPO, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def measure(program: str, runs: int, tmp: Path) -> dict[str, list[tuple[float, float]]]:
    base_env = {**os.environ, "TORCHINDUCTOR_CACHE_DIR": str(tmp / "inductor-cache")}
    configs = configurations(tmp)
    names = list(configs)
    results: dict[str, list[tuple[float, float]]] = {n: [] for n in names}
    for round_ in range(runs + 1):  # round 0 is the warm-up
        order = names[round_ % len(names):] + names[: round_ % len(names)]
        for name in order:
            prefix, extra = configs[name]
            sample = timed([*prefix, program], {**base_env, **extra})
            if round_:
                results[name].append(sample)
    return results


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5, help="measured rounds per program (after one warm-up)")
    parser.add_argument("--program", action="append", help="a program to measure (default: the bundled examples)")
    args = parser.parse_args()
    programs = args.program or PROGRAMS
    print(f"median of {args.runs} rounds (rotating order, warm caches); ratio = median of per-round ratios to python")
    print(f"{'program':20} {'configuration':13} {'wall s':>7} {'ratio':>6} {'cpu s':>7} {'ratio':>6}")
    worst = 0.0
    for program in programs:
        with tempfile.TemporaryDirectory() as tmp:
            results = measure(program, args.runs, Path(tmp))
        base = results["python"]
        for name, samples in results.items():
            row = [f"{program:20} {name:13}"]
            for i in (0, 1):  # wall, cpu
                ratio = statistics.median(s[i] / b[i] for s, b in zip(samples, base))
                row.append(f"{statistics.median(s[i] for s in samples):7.2f} {ratio:5.2f}x")
                if name == "tdiag run" and i == 1:
                    worst = max(worst, ratio)
            print(" ".join(row))
    print(f"worst tdiag run CPU ratio {worst:.2f}x (goal <= {GOAL:.2f}x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
