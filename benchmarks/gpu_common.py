"""What the GPU acceptance checks (benchmarks/gpu_*.py, run on the lent H200 by run_gpu_checks.sh) share: one CHECK
line format, the failures seen so far, and the exit status they give.

    CHECK <script>: PASS|FAIL <what was checked>
"""

from __future__ import annotations

import sys
from pathlib import Path

FAILURES: list[str] = []


def check(ok: bool, text: str) -> None:
    """Print the CHECK line of one expectation; a failed one is remembered for ``exit_status``."""
    name = Path(sys.argv[0]).stem or "gpu"
    print(f"CHECK {name}: {'PASS' if ok else 'FAIL'} {text}", flush=True)
    if not ok:
        FAILURES.append(text)


def exit_status() -> int:
    """1 when any check failed (each listed once more at the end), else 0."""
    for text in FAILURES:
        print(f"FAILED: {text}")
    return 1 if FAILURES else 0


def no_cuda_reason(hint: str = "") -> str | None:
    """Why this machine cannot run the GPU checks (torch missing, no CUDA device), or None when it can."""
    try:
        import torch
    except ImportError:
        return "SKIP: torch is not importable"
    if not torch.cuda.is_available():
        return "SKIP: CUDA is not available" + (f" ({hint})" if hint else "")
    return None
