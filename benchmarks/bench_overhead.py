"""Whole-process cost of `tdiag run` against plain `python`, with TORCH_TRACE's cost measured beside it.

    python benchmarks/bench_overhead.py [--runs 10] [--program examples/clean.py ...] [--instructions]

Each round runs every configuration of a program once, in an order that rotates from round to round (so machine
load and cache warmth hit all alike), after one warm-up round that fills the compile caches. Reported: the median
of the per-round ratios to plain `python`, for wall time and for CPU time (user+sys of the child, what stays
meaningful on a busy machine). `tdiag run` is measured as a user in CI runs it: summary printed to a non-TTY stderr,
no TUI; `--no-profile` is the same without the runtime window (its cost is in `bench_profile_overhead.py`).
Per-step cost after compilation is zero by construction (nothing on the runtime path logs to the structured trace).

Seconds on the 2-core VM vary by 5-10% from run to run, so each ratio comes with a 90% bootstrap interval, and
`--instructions` counts what each configuration executes under valgrind's callgrind instead (repeatable to ~0.1%,
whatever else the machine does; ~50x slower, so one run per configuration).

tdiag is measured as installed: its modules' bytecode is compiled first (pip does this on install; an editable
checkout under PYTHONDONTWRITEBYTECODE=1 would otherwise recompile ~50 modules from source at every exit, ~60 ms).
"""

from __future__ import annotations

import argparse
import compileall
import importlib.util
import os
import random
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PROGRAMS = ["examples/clean.py", "examples/train.py", "benchmarks/overhead_programs/eager_only.py",
            "benchmarks/overhead_programs/short_breaks.py"]
GOAL = 1.05  # wall/CPU ratio to plain python
INSTRUCTION_GOAL = 0.02  # instructions: tdiag run's ratio minus TORCH_TRACE's


def configurations(tmp: Path) -> dict[str, tuple[list[str], dict[str, str]]]:
    """name -> (command prefix before the program path, extra environment)."""
    tdiag = [sys.executable, "-m", "tdiag", "run", "--no-tui", "-o", str(tmp / "run")]
    return {
        "python": ([sys.executable], {}),
        "tdiag run": (tdiag, {}),
        "--no-profile": ([*tdiag, "--no-profile"], {}),
        "TORCH_TRACE": ([sys.executable], {"TORCH_TRACE": str(tmp / "trace")}),
    }


def compile_tdiag() -> None:
    """Write tdiag's bytecode next to its sources, as an installed package has it."""
    for name in ("tdiag", "tdiag.tracer", "tdiag.analyzer", "tdiag.reports", "tdiag.compiler", "tdiag.tui"):
        module = importlib.util.find_spec(name)
        if module and module.submodule_search_locations:
            for where in module.submodule_search_locations:
                compileall.compile_dir(where, quiet=1)


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


def median_ratio(samples: list[float], base: list[float]) -> tuple[float, float, float]:
    """Median of the per-round ratios, with a 90% percentile-bootstrap interval (the VM's run-to-run noise is
    several percent, so the interval says whether a difference is real)."""
    ratios = [s / b for s, b in zip(samples, base)]
    rng = random.Random(0)
    boot = sorted(statistics.median(rng.choices(ratios, k=len(ratios))) for _ in range(2000))
    return statistics.median(ratios), boot[len(boot) // 20], boot[-len(boot) // 20 - 1]


def instructions(program: str, tmp: Path) -> dict[str, int]:
    """Instructions each configuration executes under callgrind: repeatable to ~0.1% whatever the machine's load,
    unlike seconds here. One warm-up run each first (compile caches, the trace directory); two run at a time."""
    # A fixed hash seed: string hashing decides dict layouts and so, a little, how much work (and GC) a run does.
    base_env = {**os.environ, "TORCHINDUCTOR_CACHE_DIR": str(tmp / "inductor-cache"), "PYTHONHASHSEED": "0"}
    # One thread in torch's and OpenBLAS's pools: their idle workers spin-wait for work, and how long they spin under
    # callgrind (which runs one thread at a time) depends on scheduling, not on the program (eager_only.py's 200 small
    # steps varied by ~0.3 G between runs of the same configuration). Every configuration runs the same way.
    base_env = {**base_env, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1"}
    configs = configurations(tmp)
    for prefix, extra in configs.values():
        timed([*prefix, program], {**base_env, **extra})

    def count(name: str) -> int:
        prefix, extra = configs[name]
        cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={tmp / (name.strip('-').replace(' ', '_') + '.cg')}",
               *prefix, program]
        done = subprocess.run(cmd, cwd=REPO, env={**base_env, **extra}, stdout=subprocess.DEVNULL,
                              stderr=subprocess.PIPE, text=True)
        found = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
        if done.returncode != 0 or found is None:
            raise SystemExit(f"{' '.join(cmd)} failed ({done.returncode}):\n{done.stderr[-2000:]}")
        return int(found.group(1).replace(",", ""))

    with ThreadPoolExecutor(max_workers=2) as pool:
        return dict(zip(configs, pool.map(count, configs)))


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=10, help="measured rounds per program (after one warm-up)")
    parser.add_argument("--program", action="append", help="a program to measure (default: the bundled examples)")
    parser.add_argument("--instructions", action="store_true",
                        help="count instructions under valgrind's callgrind instead of timing (slow, ~50x)")
    args = parser.parse_args()
    programs = args.program or PROGRAMS
    compile_tdiag()
    if args.instructions:
        return main_instructions(programs)
    print(f"median of {args.runs} rounds (rotating order, warm caches); ratio = median of per-round ratios to python,"
          " [90% bootstrap interval]")
    print(f"{'program':20} {'configuration':13} {'wall s':>7} {'ratio':>20} {'cpu s':>7} {'ratio':>20}")
    worst = 0.0
    for program in programs:
        with tempfile.TemporaryDirectory() as tmp:
            results = measure(program, args.runs, Path(tmp))
        base = results["python"]
        for name, samples in results.items():
            row = [f"{Path(program).name:20} {name:13}"]
            for i in (0, 1):  # wall, cpu
                ratio, low, high = median_ratio([s[i] for s in samples], [b[i] for b in base])
                row.append(f"{statistics.median(s[i] for s in samples):7.2f} {ratio:5.2f}x [{low:.2f}-{high:.2f}]")
                if name == "tdiag run":
                    worst = max(worst, ratio)
            print(" ".join(row))
    print(f"worst tdiag run ratio (wall or CPU) {worst:.2f}x (goal <= {GOAL:.2f}x)")
    return 0


def main_instructions(programs: list[str]) -> int:
    print("instructions executed (callgrind, the process itself: compiler subprocesses are not counted)")
    print(f"{'program':20} {'configuration':13} {'instructions':>16} {'ratio':>7} {'- TORCH_TRACE':>14}")
    worst = 0.0
    for program in programs:
        with tempfile.TemporaryDirectory() as tmp:
            counts = instructions(program, Path(tmp))
        trace = counts["TORCH_TRACE"] / counts["python"]
        for name, n in counts.items():
            ratio = n / counts["python"]
            if name == "tdiag run":
                worst = max(worst, ratio - trace)
            print(f"{Path(program).name:20} {name:13} {n:16,} {ratio:6.3f}x {ratio - trace:+13.3f}")
    print(f"worst tdiag run excess over TORCH_TRACE {worst:+.3f} (goal <= {INSTRUCTION_GOAL:+.2f}: the structured trace's "
          "own cost is what any capture pays)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
