"""GPU-only (issue 41): tdiag's measured step under CUDA graphs against the program's own timer, and RUN002 with
CUDA graphs on. Runs benchmarks/gpu_expert.py's window phase (mlp_train_expert.py and gpt2_train_expert.py under
mode="reduce-overhead", `tdiag run` next to the program's StepTimer); skipped where there is no CUDA device."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = [pytest.mark.gpu, pytest.mark.inductor]
REPO = Path(__file__).resolve().parents[2]


def test_window_under_cuda_graphs_matches_the_programs_timer(tmp_path):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("no CUDA device")
    proc = subprocess.run([sys.executable, str(REPO / "benchmarks" / "gpu_expert.py"), "--phases", "window"],
                          cwd=REPO, capture_output=True, text=True, timeout=900,
                          env={**os.environ, "OUT": str(tmp_path)})
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    checks = [line for line in proc.stdout.splitlines() if line.startswith("CHECK ")]
    assert any(line.startswith("CHECK window_step_mlp_train_expert") for line in checks), proc.stdout[-3000:]
    failed = [line for line in checks if ": FAIL " in line]
    assert not failed, "\n".join(failed)
