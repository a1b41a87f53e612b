"""Helpers for the compiler tests (importable by name, unlike conftest.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

PROGRAMS = Path(__file__).parent / "programs"
REPO = Path(__file__).resolve().parents[2]


def tdiag_run(program: str, out: Path, env: dict[str, str], *extra: str) -> Path:
    cmd = [sys.executable, "-m", "tdiag", "run", "--no-tui", "-q", *extra, "-o", str(out), str(PROGRAMS / program)]
    proc = subprocess.run(cmd, env=env, cwd=PROGRAMS, capture_output=True, text=True, timeout=300)  # the program's own project: its paths read `kernels_train.py`
    assert proc.returncode == 0, proc.stderr[-4000:]
    return out


def line_of(program: str, marker: str) -> int:
    """The 1-based line of the fixture that carries ``marker`` (so tests never hard-code line numbers)."""
    lines = (PROGRAMS / program).read_text().splitlines()
    return next(i for i, text in enumerate(lines, 1) if marker in text)
