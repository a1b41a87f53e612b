"""`tdiag fix --apply --verify` on a real small model on CUDA with Inductor: before/after step time (for docs/gpu.md).

    python benchmarks/gpu_fix.py                 # needs CUDA; prints a message and exits 0 without it
    python benchmarks/gpu_fix.py --steps 400 --dim 1024

The model (benchmarks/fix_programs/mlp_train.py, a 4-block residual MLP with LayerNorm/GELU, SGD) has a branch on a
tensor value, an `.item()` and three batch sizes. The whole loop runs through tdiag: `tdiag run` records it,
`tdiag fix --verify --apply --each` re-runs the unpatched and patched copies under `tdiag run` and compares them;
the time per step is tdiag's measured runtime window (steady state, after compiles settle).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import patch_payoff  # noqa: E402  (its verify mode)

PROGRAM = Path(__file__).resolve().parent / "fix_programs" / "mlp_train.py"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--dim", type=int, default=512)
    parser.add_argument("--device", default="cuda", help="cpu for a smoke test of the script itself")
    parser.add_argument("--backend", default="inductor")
    parser.add_argument("--no-each", action="store_true", help="only all patches together (2 re-runs instead of 5)")
    args = parser.parse_args()
    if args.device == "cuda":
        import torch

        if not torch.cuda.is_available():
            print("gpu_fix: skipped, no CUDA device (run it on a GPU machine, or --device cpu for a smoke test)")
            return 0
        print(f"device: {torch.cuda.get_device_name(0)}, torch {torch.__version__}")
    program_args = ["--device", args.device, "--backend", args.backend, "--steps", str(args.steps), "--dim", str(args.dim)]
    data = patch_payoff.run_loop(PROGRAM, program_args, each=not args.no_each)
    patch_payoff.print_result(data)
    return 0 if data["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
