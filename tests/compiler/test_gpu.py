"""GPU-only: Triton kernel kinds and launch metadata (run on a CUDA machine; skipped elsewhere)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.gpu, pytest.mark.inductor]
REPO = Path(__file__).resolve().parents[2]


def test_gpu_check_script():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    proc = subprocess.run([sys.executable, str(REPO / "benchmarks" / "gpu_kernel_capture.py"), "--quick"], cwd=REPO,
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert ": FAIL " not in proc.stdout and "CHECK " in proc.stdout  # benchmarks/gpu_common.py's CHECK lines
