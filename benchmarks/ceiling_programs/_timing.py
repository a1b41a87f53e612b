"""Step timing shared by the ceiling programs: every version of a program measures its steady steps the same way.

The program calls ``timer.add(seconds)`` after each step; at exit, when ``CEILING_TIMING_FILE`` is set, the median of
the steps after ``warmup`` (compiles settle there) is written to that file as JSON. Nothing is printed, so the
program's stdout is the same in every version and `tdiag fix --verify` can compare it.
"""

import argparse
import atexit
import json
import os
import statistics
import time


class StepTimer:
    def __init__(self, warmup: int, device: str = "cpu"):
        self.warmup, self.device, self.samples = warmup, device, []
        self._started = None
        atexit.register(self._write)

    def start(self) -> None:
        self._sync()
        self._started = time.perf_counter()

    def stop(self) -> None:
        self._sync()
        self.samples.append(time.perf_counter() - self._started)

    def _sync(self) -> None:
        if self.device.startswith("cuda"):
            import torch

            torch.cuda.synchronize()

    def _write(self) -> None:
        path = os.environ.get("CEILING_TIMING_FILE")
        steady = self.samples[self.warmup:]
        if path and steady:
            with open(path, "w") as f:
                # every step too: a slow step after the warm-up (a kernel compiled at run time) shows there
                json.dump({"step_s": statistics.median(steady), "steps": len(steady), "all_steps": len(self.samples),
                           "samples_s": [round(s, 6) for s in self.samples]}, f)


def program_arguments(**ints: int) -> argparse.Namespace:
    """Every ceiling program's command line: --device, --backend, and its own integer options (name=default)."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cpu")
    parser.add_argument("--backend", default="aot_eager")
    for name, default in ints.items():
        parser.add_argument(f"--{name}", type=int, default=default)
    return parser.parse_args()


def cuda_graphs(args: argparse.Namespace) -> str | None:
    """``mode=`` for torch.compile in the expert versions: "reduce-overhead" (CUDA graphs) under Inductor on a GPU,
    else None (the default mode: CUDA graphs need CUDA, and only Inductor takes a mode)."""
    return "reduce-overhead" if args.device.startswith("cuda") and args.backend == "inductor" else None
