#!/usr/bin/env python3
"""Run a 2-rank gloo DDP job (compiled steps, barrier, destroy_process_group) N times under `tdiag run
--nproc-per-node 2` (and, with --torchrun, under plain torchrun) and count the runs that passed.

Issue 15 saw "terminate called without an active exception" (SIGABRT) at exit in about half the tdiag runs. Usage:
    scripts/ddp_exit_soak.py [-n 20] [--torchrun]
Prints one line per run and a final "tdiag: 20/20 passed" line; exits 1 when any run failed.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

PROGRAM = Path(__file__).resolve().parent.parent / "tests" / "multirank" / "programs" / "ddp_barrier.py"
ABORT = "terminate called without an active exception"


def command(launcher: str, out: Path) -> list[str]:
    if launcher == "tdiag":
        return [sys.executable, "-m", "tdiag", "run", "--nproc-per-node", "2", "--no-tui", "-o", str(out), str(PROGRAM)]
    return [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2", str(PROGRAM)]


def soak(launcher: str, runs: int, base: Path) -> int:
    passed = 0
    for i in range(1, runs + 1):
        started = time.monotonic()
        done = subprocess.run(command(launcher, base / f"{launcher}-{i}"), capture_output=True, text=True, timeout=600)
        ok = done.returncode == 0 and ABORT not in done.stderr
        passed += ok
        print(f"{launcher} run {i}: exit {done.returncode}, abort={ABORT in done.stderr}, "
              f"{time.monotonic() - started:.1f}s", flush=True)
        if not ok:
            print(done.stderr[-2000:], file=sys.stderr)
    print(f"{launcher}: {passed}/{runs} passed", flush=True)
    return passed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=20, help="runs per launcher (default: %(default)s)")
    parser.add_argument("--torchrun", action="store_true", help="also run it under plain torchrun, for comparison")
    args = parser.parse_args()
    os.environ.setdefault("PYTHONUNBUFFERED", "1")
    with tempfile.TemporaryDirectory(prefix="tdiag-ddp-soak-") as tmp:
        results = [soak("tdiag", args.n, Path(tmp)) == args.n]
        if args.torchrun:
            results.append(soak("torchrun", args.n, Path(tmp)) == args.n)
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
