"""Wall-time overhead of `tdiag run` against plain `python` on the bundled examples (warm compile caches).

    python benchmarks/bench_overhead.py [--runs 5]

Runs each program alternately under both (run pairs, so machine load hits both alike), after one warm-up
of each, and prints the median ratio. Per-step cost after compilation is zero by construction (nothing on the
runtime path logs to the structured trace); the whole-process ratio is what a user feels.
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
PROGRAMS = ["examples/train.py", "examples/clean.py"]


def timed(cmd: list[str], env: dict[str, str]) -> tuple[float, float]:
    """Wall seconds and CPU seconds (user+sys of the child): CPU time is what stays meaningful on a busy machine."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(cmd, cwd=REPO, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "TORCHINDUCTOR_CACHE_DIR": str(Path(tmp) / "cache")}
        print(f"median of {args.runs} run pairs, warm caches; wall and CPU (user+sys) seconds")
        print(f"{'program':20} {'python wall':>11} {'tdiag wall':>10} {'ratio':>6} {'python cpu':>10} {'tdiag cpu':>9} {'ratio':>6}")
        for program in PROGRAMS:
            plain = [sys.executable, program]
            traced = [sys.executable, "-m", "tdiag", "run", "--no-tui", "-q", "-o", str(Path(tmp) / "run"), program]
            timed(plain, env), timed(traced, env)  # warm-up: fill compile caches for both configurations
            pairs = [(timed(plain, env), timed(traced, env)) for _ in range(args.runs)]
            row = [program]
            for i in (0, 1):  # wall, cpu
                base = statistics.median(p[i] for p, _ in pairs)
                ours = statistics.median(t[i] for _, t in pairs)
                ratio = statistics.median(t[i] / p[i] for p, t in pairs)
                row += [f"{base:.2f}", f"{ours:.2f}", f"{ratio:.2f}x"]
            print(f"{row[0]:20} {row[1]:>11} {row[2]:>10} {row[3]:>6} {row[4]:>10} {row[5]:>9} {row[6]:>6}")


if __name__ == "__main__":
    main()
