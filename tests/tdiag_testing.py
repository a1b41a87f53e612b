"""Helpers shared by test modules (conftest.py holds only fixtures: conftest modules are not importable by name)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).parent
PROGRAMS = TESTS / "programs"
REPO = TESTS.parent


def tdiag_cmd(*args: str) -> list[str]:
    return [sys.executable, "-m", "tdiag", *args]


def run_tdiag(args: list[str], env: dict[str, str], cwd: Path = PROGRAMS, timeout: int = 300) -> subprocess.CompletedProcess:
    return subprocess.run(tdiag_cmd(*args), cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


class RecordedRuns:
    """Runs each fixture program under `tdiag run` once per session and keeps the run directory."""

    def __init__(self, base: Path, env: dict[str, str]):
        self.base, self.env, self.done = base, env, {}

    def __call__(self, program: str, *args: str) -> tuple[Path, subprocess.CompletedProcess]:
        key = (program, args)
        if key not in self.done:
            out = self.base / (Path(program).stem + ("-" + "-".join(args) if args else ""))
            proc = run_tdiag(["run", "--no-tui", "-o", str(out), program, *args], self.env)
            self.done[key] = (out, proc)
        return self.done[key]


HOT_LINE, ONCE_LINE = 22, 15  # the graph_break() lines of `hot` and `once` in hot_loop_break.py


def hot_finding(analysis):
    """The break in `hot` of tests/runtime/programs/hot_loop_break.py (the `hot_loop_record` fixture)."""
    return next(f for f in analysis.findings if f.family == "BRK" and f.function == "hot")
