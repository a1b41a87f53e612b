"""Shared fixtures: real `tdiag run` subprocesses over the fixture programs, one compile cache per session."""

from __future__ import annotations

import os

import pytest
from tdiag_testing import RecordedRuns


@pytest.fixture(scope="session")
def session_env(tmp_path_factory) -> dict[str, str]:
    """Environment for child processes: one Inductor cache per session, no user TORCH_* settings leaking in."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("TORCH_LOGS", "TORCH_TRACE", "TORCHDYNAMO"))}
    env["TORCHINDUCTOR_CACHE_DIR"] = str(tmp_path_factory.mktemp("inductor-cache"))
    env["PYTHONUNBUFFERED"] = "1"
    return env


@pytest.fixture(scope="session")
def recorded(tmp_path_factory, session_env) -> RecordedRuns:
    return RecordedRuns(tmp_path_factory.mktemp("runs"), session_env)


HOT_LOOP = os.path.join(os.path.dirname(__file__), "runtime", "programs", "hot_loop_break.py")


@pytest.fixture(scope="session")
def hot_loop_record(tmp_path_factory, session_env):
    """A measured record (one real `tdiag run`) of tests/runtime/programs/hot_loop_break.py: a break called 50 times
    a step in `hot` (line 22) and once in `once` (line 15), shared by the TUI and HTML cost tests."""
    from tdiag_testing import run_tdiag

    out = tmp_path_factory.mktemp("cost") / "run"
    proc = run_tdiag(["run", "--no-tui", "-q", "-o", str(out), HOT_LOOP, "30"], session_env)
    assert proc.returncode == 0, proc.stderr
    return out


@pytest.fixture(scope="session")
def hot_loop_analysis(hot_loop_record):
    """The Analysis of ``hot_loop_record``, its runtime window measured."""
    from tdiag.analyzer import build

    analysis = build(hot_loop_record)
    assert analysis.summary.runtime.status == "measured"
    return analysis
