"""The ceiling on one GPU: bench_ceiling.py's four versions (before, tdiag's rounds, hand-fixed, eager) under
Inductor on CUDA, for the ceiling programs that fit the time budget. No network: every model is built from a config.

    python benchmarks/gpu_ceiling.py            # about 6-8 minutes on one H200

Prints `CHECK ceiling_<program>: PASS|FAIL ...` per program (PASS: tdiag's rounds recover at least 90% of the
hand-fixed gain, or the hand-fixed gain is within the runs' spread and tdiag is no slower than before) and the
markdown table bench_ceiling.py writes.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_ceiling  # noqa: E402

PROGRAMS = ("mlp_train", "gpt2_train")  # the cheapest to compile first; the rest when the budget allows
BUDGET_S = 7 * 60


def main() -> int:
    import torch

    if not torch.cuda.is_available():
        print("CHECK ceiling_gpu: FAIL no CUDA device")
        return 1
    started, results = time.perf_counter(), []
    for name in PROGRAMS:
        if time.perf_counter() - started > BUDGET_S / 2 and results:
            print(f"CHECK ceiling_{name}: FAIL not run: over half the time budget spent")
            continue
        t0 = time.perf_counter()
        r = bench_ceiling.measure(name, ["--device", "cuda", "--backend", "inductor"], runs=2, repeat=1)
        results.append(r)
        share, before, after = r.recovered(), r.best("before"), r.best("tdiag")
        figures = " ".join(f"{v}={'-' if r.best(v) is None else f'{r.best(v) * 1e3:.3f}ms'}" for v in bench_ceiling.VERSIONS)
        if share is not None:
            ok = share >= 0.9
            detail = f"recovered {share:.0%} of the hand-fixed gain"
        else:
            ok = None not in (before, after) and after <= before * 1.1
            detail = "hand-fixed gain within the spread; tdiag no slower than before" if ok else "no figure"
        left = ",".join(sorted(r.left)) or "none"
        print(f"CHECK ceiling_{name}: {'PASS' if ok else 'FAIL'} {detail}; {figures}; rounds={r.rounds} "
              f"kept={len(r.kept)} left={left} ({time.perf_counter() - t0:.0f} s){' ' + r.error if r.error else ''}",
              flush=True)
    print(bench_ceiling.table(results, "device cuda (H200), backend inductor, best of 2 runs"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
