#!/usr/bin/env python3
"""Reproduce torch's gloo exit abort with and without tdiag: a 2-rank DDP job whose gloo worker threads run at
SCHED_IDLE while busy processes keep every core loaded, so a worker is starved from the moment it completes the last
allreduce until the main thread is shutting down the interpreter (tests/gloo_exit.py explains the crash).

    scripts/gloo_exit_race.py [-n 6]

Prints one line per run and, per launcher, how many runs aborted with "terminate called without an active exception".
Measured on the 2-core development machine: plain torchrun 5 of 15 runs, tdiag 1 of 10 (Linux only: SCHED_IDLE).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import subprocess
import sys
import tempfile
from pathlib import Path

PROGRAM = Path(__file__).resolve().parent.parent / "tests" / "distributed" / "programs" / "ddp_buckets.py"
ABORT = "terminate called without an active exception"
STARVED = f'''\
import os
import torch.distributed as dist

_init = dist.init_process_group


def init_and_starve(*args, **kwargs):
    _init(*args, **kwargs)
    for tid in os.listdir("/proc/self/task"):
        with open(f"/proc/self/task/{{tid}}/comm") as comm:
            if comm.read().strip() == "pt_gloo_runloop":
                os.sched_setscheduler(int(tid), os.SCHED_IDLE, os.sched_param(0))


dist.init_process_group = init_and_starve
exec(compile(open({str(PROGRAM)!r}).read(), {str(PROGRAM)!r}, "exec"))
'''


def busy() -> None:
    while True:
        pass


def command(launcher: str, program: Path, out: Path) -> list[str]:
    if launcher == "tdiag":
        return [sys.executable, "-m", "tdiag", "run", "--nproc-per-node", "2", "--no-tui", "-q", "-o", str(out),
                str(program)]
    return [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node", "2", str(program)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("-n", type=int, default=6, help="runs per launcher (default: %(default)s)")
    args = parser.parse_args()
    hogs = [multiprocessing.Process(target=busy, daemon=True) for _ in range((os.cpu_count() or 2) + 1)]
    for hog in hogs:
        hog.start()
    aborted = {"torchrun": 0, "tdiag": 0}
    try:
        with tempfile.TemporaryDirectory(prefix="tdiag-gloo-race-") as tmp:
            program = Path(tmp) / "starved_ddp.py"
            program.write_text(STARVED)
            for i in range(1, args.n + 1):
                for launcher in aborted:
                    done = subprocess.run(command(launcher, program, Path(tmp) / f"{launcher}-{i}"), cwd=tmp,
                                          capture_output=True, text=True, timeout=600)
                    hit = ABORT in done.stderr
                    aborted[launcher] += hit
                    print(f"{launcher} run {i}: exit {done.returncode}, abort={hit}", flush=True)
    finally:
        for hog in hogs:
            hog.kill()
    for launcher, count in aborted.items():
        print(f"{launcher}: {count}/{args.n} runs aborted at exit", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
