"""Real TORCH_TRACE logs, written by running a fixture program under plain python, and a `tdiag run` of the same."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent
IMPORT_PROGRAMS = HERE / "programs"
IMPORT_DATA = HERE / "data"
PROGRAM = "breaks_and_recompile.py"


@pytest.fixture(scope="session")
def real_trace_log(tmp_path_factory, session_env) -> Path:
    """The one log file torch writes for the fixture program with TORCH_TRACE set (backend="eager")."""
    trace_dir = tmp_path_factory.mktemp("torch-trace")
    env = {**session_env, "TORCH_TRACE": str(trace_dir)}
    done = subprocess.run([sys.executable, PROGRAM], cwd=IMPORT_PROGRAMS, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    logs = sorted(trace_dir.glob("dedicated_log_torch_trace*.log"))
    assert len(logs) == 1, logs
    return logs[0]


@pytest.fixture(scope="session")
def recorded_run(tmp_path_factory, session_env) -> Path:
    """`tdiag run` of the same program: what an import must agree with."""
    run_dir = tmp_path_factory.mktemp("tdiag-run") / "run"
    cmd = [sys.executable, "-m", "tdiag", "run", "--no-tui", "-q", "-o", str(run_dir), PROGRAM]
    done = subprocess.run(cmd, cwd=IMPORT_PROGRAMS, env=session_env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    return run_dir
