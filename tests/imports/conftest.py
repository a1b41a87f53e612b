"""Real TORCH_TRACE logs, written by running a fixture program under plain python, and a `tdiag run` of the same."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from tdiag_testing import once_per_session, shared_dir

HERE = Path(__file__).parent
IMPORT_PROGRAMS = HERE / "programs"
IMPORT_DATA = HERE / "data"
PROGRAM = "breaks_and_recompile.py"


@pytest.fixture(scope="session")
def real_trace_log(tmp_path_factory, session_env) -> Path:
    """The one log file torch writes for the fixture program with TORCH_TRACE set (backend="eager"). Once per
    session for both xdist workers; the tests read it, and copy it to change it."""

    def make(trace_dir: Path) -> dict:
        trace_dir.mkdir()
        env = {**session_env, "TORCH_TRACE": str(trace_dir)}
        done = subprocess.run([sys.executable, PROGRAM], cwd=IMPORT_PROGRAMS, env=env, capture_output=True, text=True,
                              timeout=300)
        return {"returncode": done.returncode, "stderr": done.stderr}

    folder = shared_dir(tmp_path_factory, "imports")
    result = once_per_session(folder, "torch-trace", make)
    assert result["returncode"] == 0, result["stderr"]
    logs = sorted((folder / "torch-trace").glob("dedicated_log_torch_trace*.log"))
    assert len(logs) == 1, logs
    return logs[0]


@pytest.fixture(scope="session")
def recorded_run(tmp_path_factory, session_env) -> Path:
    """`tdiag run` of the same program: what an import must agree with (once per session, read only)."""

    def make(run_dir: Path) -> dict:
        cmd = [sys.executable, "-m", "tdiag", "run", "--no-tui", "-q", "-o", str(run_dir), PROGRAM]
        done = subprocess.run(cmd, cwd=IMPORT_PROGRAMS, env=session_env, capture_output=True, text=True, timeout=300)
        return {"returncode": done.returncode, "stderr": done.stderr}

    folder = shared_dir(tmp_path_factory, "imports")
    result = once_per_session(folder, "tdiag-run", make)
    assert result["returncode"] == 0, result["stderr"]
    return folder / "tdiag-run"
