"""The ceiling on one GPU: bench_ceiling.py's five versions (before, tdiag's rounds, hand-fixed, expert, eager) under
Inductor on CUDA, for the ceiling programs that fit the time budget. No network: every model is built from a config.

    python benchmarks/gpu_ceiling.py                  # one device call: at most BUDGET_S (8.5 minutes) in all
    python benchmarks/gpu_ceiling.py --budget 1200    # a longer call, where the lender allows one

Programs run cheapest first, each `--runs 2 --repeat 1`. Before each, its cost is estimated from the programs
already measured (their seconds per unit of `COST`, the relative cost of a run on CPU); one that would not finish
inside the budget, or whose library is not installed, is not started (`CHECK ceiling_<program>: SKIP ...`), and
every subprocess of the one running is stopped at the budget's end, so the call returns the lines of what ran.
Prints `CHECK ceiling_<program>: PASS|FAIL ...` per program (PASS: tdiag's rounds recover at least 90% of the
expert version's gain, or that gain is within the runs' spread and tdiag is no slower than before; never PASS when
tdiag's compiled step is no faster than eager), a `CHECK ceiling_budget` line, and the markdown table.
`benchmarks/gpu_expert.py` is the one-call GPU check of the expert work (CUDA graphs, the optimizer patches).
"""

from __future__ import annotations

import argparse
import importlib.util
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_ceiling  # noqa: E402

# relative cost of one program's whole measurement (the tdiag run, its rounds, 8 timed runs), cheapest first; read
# from the CPU runs (aot_eager) of 2026-12-02, where compile time dominates as it does under Inductor
COST = {
    "mlp_train": 1.0,
    "train_example": 1.0,
    "gnn_train": 1.5,
    "lightning_train": 1.5,
    "bert_train": 2.0,
    "gpt2_train": 2.0,
    "peft_train": 2.5,
    "unet_step": 3.0,
}
PROGRAMS = tuple(COST)
# the library each program needs (the corpus extra): a program whose library the machine lacks is skipped, said so
NEEDS = {"gnn_train": "torch_geometric", "lightning_train": "lightning", "bert_train": "transformers",
         "gpt2_train": "transformers", "peft_train": "peft", "unet_step": "diffusers"}
BUDGET_S = 510  # inside one device call of 9 minutes, with room for the machine's start and the transfers
RUNS, REPEAT = 2, 1


def check_line(r: bench_ceiling.Result, spent: float) -> str:
    """``CHECK ceiling_<program>: PASS|FAIL ...``: PASS when tdiag's rounds recover at least 90% of the ceiling's gain
    (the expert version's; the hand fix's where no expert ran), or that gain is within the runs' spread and tdiag
    is no slower than before; and never when tdiag's compiled step is no faster than eager."""
    share, before, after = r.recovered(), r.best("before"), r.best("tdiag")
    figures = " ".join(f"{v}={'-' if r.best(v) is None else f'{r.best(v) * 1e3:.3f}ms'}"
                       for v in bench_ceiling.VERSIONS)
    if share is not None:
        ok = share >= 0.9
        detail = f"recovered {share * 100:.1f}% of the {r.ceiling()} version's gain"
    else:
        ok = None not in (before, after) and after <= before * 1.1
        detail = f"{r.ceiling()} gain within the spread; tdiag no slower than before" if ok else "no figure"
    if r.faster_than_eager("tdiag") is not True:  # a compiled step no faster than eager is never a pass
        ok = False
        detail += "; tdiag's compiled step is no faster than eager" if r.best("eager") else "; eager not measured"
    left_codes = ",".join(sorted(r.left)) or "none"
    return (f"CHECK ceiling_{r.name}: {'PASS' if ok else 'FAIL'} {detail}; {figures}; rounds={r.rounds} "
            f"kept={len(r.kept)} left={left_codes} ({spent:.0f} s){' ' + r.error if r.error else ''}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budget", type=float, default=BUDGET_S, help="seconds for every program together")
    parser.add_argument("--only", action="append", help="a program name (repeatable)")
    args = parser.parse_args(argv)
    import torch

    if not torch.cuda.is_available():
        print("CHECK ceiling_gpu: FAIL no CUDA device")
        return 1
    started = time.monotonic()
    deadline = started + args.budget
    results, skipped, spent_per_unit = [], [], []
    for name in [n for n in PROGRAMS if not args.only or n in args.only]:
        if name in NEEDS and importlib.util.find_spec(NEEDS[name]) is None:
            skipped.append(name)
            print(f"CHECK ceiling_{name}: SKIP not run: {NEEDS[name]} is not installed", flush=True)
            continue
        left = deadline - time.monotonic()
        estimate = max(spent_per_unit) * COST[name] if spent_per_unit else None
        if estimate is not None and estimate > left:
            skipped.append(name)
            print(f"CHECK ceiling_{name}: SKIP not run: estimated {estimate:.0f} s, {left:.0f} s of the budget left",
                  flush=True)
            continue
        t0 = time.monotonic()
        r = bench_ceiling.measure(name, ["--device", "cuda", "--backend", "inductor"], RUNS, REPEAT, deadline)
        spent = time.monotonic() - t0
        spent_per_unit.append(spent / COST[name])
        results.append(r)
        print(check_line(r, spent), flush=True)
    total = time.monotonic() - started
    print(f"CHECK ceiling_budget: {'PASS' if not skipped else 'FAIL'} {len(results)} programs measured in "
          f"{total:.0f} s of {args.budget:.0f} s" + (f"; not run: {', '.join(skipped)}" if skipped else ""), flush=True)
    print(bench_ceiling.table(results, f"device cuda (H200), backend inductor, best of {RUNS} runs"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
