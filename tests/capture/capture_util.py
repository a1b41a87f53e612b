"""Run the capture tests' programs under python and under `tdiag run`."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

PROGRAMS = Path(__file__).parent / "programs"


def under_python(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess:
    """``python *args`` in the programs' folder, without tdiag; kept between test runs (tests/oracle_cache.py)."""
    from oracle import run_plain
    from oracle_cache import kept_run

    return kept_run(run_plain, PROGRAMS / args[0], env, None, args[1:])


def under_tdiag(run_dir: Path, args: list[str], env: dict[str, str], *options: str) -> subprocess.CompletedProcess:
    cmd = [sys.executable, "-m", "tdiag", "run", "--no-tui", "-o", str(run_dir), *options, *args]
    return subprocess.run(cmd, cwd=PROGRAMS, env=env, capture_output=True, text=True, timeout=300)
