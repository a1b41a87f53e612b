"""Precision and recall of tdiag's findings per rule family over the precision corpus (tests/corpus).

    python benchmarks/bench_precision.py [--records DIR] [--keep DIR] [PROGRAM ...]

Runs `tdiag run` on every corpus program (real transformers / x-transformers / torch_geometric / diffusers / einops
code, needs the `corpus` extra) and scores the findings against the hand-written expectations in
tests/corpus/expected.py: a hit is an expected (rule, user line) pair that was reported; a false positive is a
reported pair neither expected nor allowed, or any finding anchored outside the user's files. Goals: precision >= 0.95
per family, recall 1.0 for breaks (BRK) and recompiles (RCP). ``--records DIR`` scores existing runs
(DIR/<program stem>) instead of running; ``--keep DIR`` keeps the new runs there.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "corpus"))

import torch  # noqa: E402  (the release decides which expectation applies)
from corpus_scoring import env as corpus_env  # noqa: E402
from corpus_scoring import per_family, run, score  # noqa: E402
from expected import EXPECTED  # noqa: E402

GOALS = {"precision": 0.95, "recall": {"BRK": 1.0, "RCP": 1.0}}


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--records", type=Path, help="score existing runs DIR/<program stem> instead of running")
    parser.add_argument("--keep", type=Path, help="keep the runs under this folder")
    parser.add_argument("programs", nargs="*", help="corpus programs (default: all)")
    args = parser.parse_args()
    programs = args.programs or sorted(EXPECTED)
    scores = []
    with tempfile.TemporaryDirectory() as tmp:
        base = args.records or args.keep or Path(tmp)
        for program in programs:
            run_dir = base / Path(program).stem
            if args.records is None:
                started = time.perf_counter()
                proc = run(program, run_dir, corpus_env())
                if proc.returncode != EXPECTED[program].on(torch.__version__).exit_code:
                    print(f"{program}: tdiag run failed ({proc.returncode}): {proc.stderr[-500:]}", file=sys.stderr)
                    continue
                print(f"ran {program} in {time.perf_counter() - started:.0f}s", file=sys.stderr)
            elif not run_dir.exists():
                print(f"{program}: no record under {args.records}, not scored", file=sys.stderr)
                continue
            result, _ = score(program, run_dir, EXPECTED[program].on(torch.__version__))
            scores.append(result)

    print(f"{'program':34} {'expected':>8} {'hits':>5} {'missed':>6} {'false+':>6}")
    for s in scores:
        print(f"{s.program:34} {len(s.expected):8} {len(s.hits):5} {len(s.misses):6} {len(s.false_positives):6}")
    print()
    print(f"{'family':8} {'tp':>4} {'fp':>4} {'fn':>4} {'precision':>10} {'recall':>7}")
    ok = True
    for family, t in per_family(scores).items():
        precision, recall = t["precision"], t["recall"]
        print(f"{family:8} {t['tp']:4} {t['fp']:4} {t['fn']:4} {_fmt(precision):>10} {_fmt(recall):>7}")
        ok &= precision is None or precision >= GOALS["precision"]
        ok &= recall is None or recall >= GOALS["recall"].get(family, 0.0)
    print()
    for s in scores:
        if s.misses or s.false_positives:
            print(s.diff(EXPECTED[s.program].why))
    print("goals met" if ok else "goals NOT met (precision >= 0.95 per family, recall 1.0 for BRK and RCP)")
    return 0 if ok else 1


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


if __name__ == "__main__":
    sys.exit(main())
