"""Wall-time overhead of ``tdiag run`` on an Inductor program: cold and warm Inductor caches.

    python benchmarks/bench_inductor_overhead.py [--runs 3] [--program PATH]

Runs ``python prog.py`` and ``python -m tdiag run --no-tui -q prog.py`` alternately, each with its own
TORCHINDUCTOR_CACHE_DIR: cold = a fresh empty cache dir per run; warm = a cache dir filled once beforehand (the
tdiag side gets its own warm dir, since provenance tracking is part of the FX graph cache key). Prints the median
wall time of each and the ratio. Budget: <= 1.15x warm.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_PROGRAM = REPO / "tests" / "compiler" / "programs" / "kernels_train.py"
WARM_BUDGET = 1.15


def timed(cmd: list[str], cache_dir: str, out_dir: str | None = None) -> float:
    env = {**os.environ, "TORCHINDUCTOR_CACHE_DIR": cache_dir}
    started = time.perf_counter()
    subprocess.run(cmd, env=env, cwd=REPO, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def commands(program: Path, out_dir: str) -> tuple[list[str], list[str]]:
    plain = [sys.executable, str(program)]
    traced = [sys.executable, "-m", "tdiag", "run", "--no-tui", "-q", "-o", out_dir, str(program)]
    return plain, traced


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--program", type=Path, default=DEFAULT_PROGRAM)
    parser.add_argument("--skip-cold", action="store_true")
    args = parser.parse_args()
    results: dict[str, tuple[list[float], list[float]]] = {}
    with tempfile.TemporaryDirectory(prefix="tdiag-bench-") as tmp:
        counter = iter(range(10_000))
        out = lambda: os.path.join(tmp, f"run{next(counter)}")
        fresh = lambda: tempfile.mkdtemp(dir=tmp, prefix="cache-")
        plain, _ = commands(args.program, out())
        if not args.skip_cold:
            cold_plain, cold_traced = [], []
            for _ in range(args.runs):
                cold_plain.append(timed(plain, fresh()))
                cold_traced.append(timed(commands(args.program, out())[1], fresh()))
            results["cold"] = (cold_plain, cold_traced)
        warm_plain_dir, warm_traced_dir = fresh(), fresh()
        timed(plain, warm_plain_dir)  # fill the caches once
        timed(commands(args.program, out())[1], warm_traced_dir)
        warm_plain, warm_traced = [], []
        for _ in range(args.runs):
            warm_plain.append(timed(plain, warm_plain_dir))
            warm_traced.append(timed(commands(args.program, out())[1], warm_traced_dir))
        results["warm"] = (warm_plain, warm_traced)
    print(f"program: {args.program.relative_to(REPO) if args.program.is_relative_to(REPO) else args.program}, runs: {args.runs}")
    ok = True
    for name, (base, traced) in results.items():
        ratio = statistics.median(traced) / statistics.median(base)
        print(f"{name:5s} python {statistics.median(base):6.2f}s  tdiag run {statistics.median(traced):6.2f}s  "
              f"ratio {ratio:.3f}x   (python: {', '.join(f'{t:.2f}' for t in base)}; "
              f"tdiag: {', '.join(f'{t:.2f}' for t in traced)})")
        if name == "warm" and ratio > WARM_BUDGET:
            ok = False
    print(f"warm budget {WARM_BUDGET:.2f}x: {'met' if ok else 'EXCEEDED'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
