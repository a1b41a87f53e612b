"""Helpers for the kernel attribution tests (importable by name, unlike conftest.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def tdiag_run(program: Path, out: Path, env: dict[str, str], *window: str) -> Path:
    cmd = [sys.executable, "-m", "tdiag", "run", "--no-tui", "-q", *(window or ["--no-profile"]), "-o", str(out),
           str(program)]
    proc = subprocess.run(cmd, env=env, cwd=program.parent, capture_output=True, text=True, timeout=600)  # its own project
    assert proc.returncode == 0, proc.stderr[-4000:]
    return out


MLP = Path(__file__).parent / "programs" / "mlp_train.py"
VIT = REPO / "tests" / "corpus" / "programs" / "hf_vit_train_inductor.py"
MIXER = REPO / "tests" / "corpus" / "programs" / "custom_op_mlp_inductor.py"


def line_of(program: Path, marker: str) -> int:
    return next(i for i, text in enumerate(program.read_text().splitlines(), 1) if marker in text)


MLP_WINDOW = ("--profile-window", "4:2")  # the MLP trains 10 steps: compiled by step 2, 4 measured after 2 settle


