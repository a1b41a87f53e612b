"""Whole-process cost of the runtime window: `tdiag run` (measuring) and `tdiag run --no-profile` against plain `python`.

    python benchmarks/bench_profile_overhead.py [--runs 5]

Goals (issue 11): measuring <= 1.10x, --no-profile <= 1.05x (median of >= 5 run triples, warm compile caches).
Each row also says whether the window was measured in that run (a program too short for one is reported so).
examples/train.py runs 12 epochs here (36 steps) so that a default window (3 settle + 20 steps) fits.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PROGRAMS = [["examples/train.py", "--epochs", "12"], ["examples/clean.py"]]


def timed(cmd: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(cmd, cwd=REPO, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def window_status(run_dir: Path) -> str:
    for line in (run_dir / "events.jsonl").read_text().splitlines():
        event = json.loads(line)
        if event.get("type") == "runtime":
            return event.get("status", "?")
    return "absent"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "TORCHINDUCTOR_CACHE_DIR": str(Path(tmp) / "cache")}
        print(f"median of {args.runs} run triples, warm caches, wall seconds")
        print(f"{'program':28} {'python':>7} {'measuring':>9} {'ratio':>6} {'no-profile':>10} {'ratio':>6}  window")
        for program in PROGRAMS:
            run_dir = Path(tmp) / "run"
            plain = [sys.executable, *program]
            measuring = [sys.executable, "-m", "tdiag", "run", "--no-tui", "-q", "-o", str(run_dir), *program]
            off = [sys.executable, "-m", "tdiag", "run", "--no-tui", "-q", "--no-profile", "-o", str(Path(tmp) / "off"), *program]
            for cmd in (plain, measuring, off):
                timed(cmd, env)  # warm-up: fill compile caches
            rows = [(timed(plain, env), timed(measuring, env), timed(off, env)) for _ in range(args.runs)]
            base = statistics.median(r[0] for r in rows)
            on_ratio = statistics.median(r[1] / r[0] for r in rows)
            off_ratio = statistics.median(r[2] / r[0] for r in rows)
            name = " ".join(program)
            print(
                f"{name:28} {base:7.2f} {statistics.median(r[1] for r in rows):9.2f} {on_ratio:5.2f}x "
                f"{statistics.median(r[2] for r in rows):10.2f} {off_ratio:5.2f}x  {window_status(run_dir)}"
            )


if __name__ == "__main__":
    main()
