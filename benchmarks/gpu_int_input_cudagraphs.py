"""GPU check of the judgement behind RCP002's candidate order on CUDA (analyzer/suggestions/scalar_arg.py): under
CUDA graphs, a Python int input made symbolic (``dynamic=True``) is recorded once per value, a 0-d tensor replays.

unet_step's expert version (the timestep passed as a tensor, mode="reduce-overhead", the compiled optimizer) against
the same program with the timestep a Python int and ``dynamic=True`` on the step's compile (the patch tdiag offered
first before this order), derived from it by text substitution so the two differ in that alone. Each runs ``--runs``
times, interleaved, timed by the program's own clock (benchmarks/ceiling_programs/_timing.py).

    python benchmarks/gpu_int_input_cudagraphs.py [--runs 2]    # about 2-3 minutes on an H100

CHECK lines: both versions print the same losses; the tensor version's step is faster by at least 1.5x (a timestep
drawn from 1000 values records a graph nearly every step). Skips (exit 0) without CUDA.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import bench_ceiling
from gpu_common import check, exit_status, no_cuda_reason

EXPERT = bench_ceiling.PROGRAMS / "unet_step_expert.py"
# (expert text, the int-input variant's text): the timestep stays a Python int, made into a tensor inside the step
SUBSTITUTIONS = [
    ("mode=cuda_graphs(args))", "mode=cuda_graphs(args), dynamic=True)"),
    ("noisy = scheduler.add_noise(clean, noise, t)",
     "noisy = scheduler.add_noise(clean, noise, torch.tensor([t], device=clean.device))"),
    ("loss = train_step(clean, torch.tensor([t], device=args.device))", "loss = train_step(clean, t)"),
]
CUDA = ["--device", "cuda", "--backend", "inductor"]


def int_variant() -> Path:
    text = EXPERT.read_text()
    for old, new in SUBSTITUTIONS:
        if old not in text:
            raise SystemExit(f"{EXPERT.name} no longer holds {old!r}: update SUBSTITUTIONS")
        text = text.replace(old, new)
    path = EXPERT.with_name("unet_step_int_timestep.py")  # beside _timing.py, which it imports
    path.write_text(text)
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args()
    reason = no_cuda_reason()
    if reason:
        print(reason)
        return 0
    variant = int_variant()
    times: dict[str, list[float]] = {"tensor": [], "int": []}
    outputs: dict[str, set[str]] = {"tensor": set(), "int": set()}
    try:
        for _ in range(args.runs):
            for name, script in (("tensor", EXPERT), ("int", variant)):
                step, stdout = bench_ceiling.timed_with_output(script, CUDA, timeout=240)
                if step is not None:
                    times[name].append(step)
                    outputs[name].add(stdout)
                print(f"{name}: {'-' if step is None else f'{step * 1e3:.3f} ms'}", flush=True)
    finally:
        variant.unlink(missing_ok=True)
    check(bool(times["tensor"]) and bool(times["int"]), f"both versions ran ({len(times['tensor'])}, "
          f"{len(times['int'])} runs)")
    if times["tensor"] and times["int"]:
        check(outputs["tensor"] == outputs["int"], "the same losses printed by both versions")
        best_tensor, best_int = min(times["tensor"]), min(times["int"])
        check(best_int >= 1.5 * best_tensor, f"the timestep as a tensor {best_tensor * 1e3:.3f} ms a step, as a "
              f"symbolic int {best_int * 1e3:.3f} ms ({best_int / best_tensor:.2f}x)")
    return exit_status()


if __name__ == "__main__":
    sys.exit(main())
