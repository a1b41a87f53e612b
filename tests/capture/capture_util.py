"""Run the capture tests' programs under python and under `tdiag run`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

PROGRAMS = Path(__file__).parent / "programs"


def under_python(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, *args], cwd=PROGRAMS, env=env, capture_output=True, text=True, timeout=300)


def under_tdiag(run_dir: Path, args: list[str], env: dict[str, str], *options: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "tdiag", "run", "--no-tui", "-o", str(run_dir), *options, *args]
    return subprocess.run(cmd, cwd=PROGRAMS, env=env, capture_output=True, text=True, timeout=300)
