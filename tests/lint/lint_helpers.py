"""Helpers shared by the lint/CI tests (imported by name: tests/lint is on sys.path under pytest)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
TESTS = HERE.parent
PROGRAMS = TESTS / "programs"
GOLDEN = HERE / "golden"
UPDATE_GOLDEN = os.environ.get("TDIAG_UPDATE_GOLDEN") == "1"

# data_dependent_if.py with its branch expressed as torch.where: the "fixed" side of a diff.
BRANCH_FIXED = '''import torch


@torch.compile(backend="eager")
def step(x):
    y = torch.relu(x) * 2
    y = torch.where(y.sum() > 0, y + 1, y - 1)
    return y * 3


print(step(torch.randn(4, 3)).shape)
'''



def tdiag(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tdiag", *args], capture_output=True, text=True, env=env, cwd=cwd, timeout=300)


def check_golden(name: str, actual: str) -> None:
    """Compare with tests/lint/golden/<name>; TDIAG_UPDATE_GOLDEN=1 rewrites it instead."""
    path = GOLDEN / name
    if UPDATE_GOLDEN or not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(actual, encoding="utf-8")
        if not UPDATE_GOLDEN:
            pytest.fail(f"golden file {path.name} was missing and has been written: check it in and re-run")
    assert actual == path.read_text(encoding="utf-8"), f"{name} differs (TDIAG_UPDATE_GOLDEN=1 to accept)"
