"""Fixtures for the lint/CI tests: the shared fixture Analysis, and real records made once per session."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from lint_helpers import BRANCH_FIXED, TESTS
from tdiag.analyzer.model import Analysis
from tdiag_testing import once_per_session, shared_dir


@pytest.fixture
def sample() -> Analysis:
    with open(TESTS / "data" / "sample_analysis.json", encoding="utf-8") as fh:
        return Analysis.from_dict(json.load(fh))


@pytest.fixture(scope="session")
def lint_records(tmp_path_factory, session_env, recorded) -> dict[str, Path]:
    """name -> run directory of a real `tdiag run`, each made once per session for both xdist workers (the tests only
    read them): the two fixture programs from the session's shared records, the fixed branch recorded here."""

    def make(base: Path) -> dict:
        fixed_program = base / "src" / "data_dependent_if.py"
        fixed_program.parent.mkdir(parents=True)
        fixed_program.write_text(BRANCH_FIXED)
        out = str(base / "branch_fixed")
        cmd = [sys.executable, "-m", "tdiag", "run", "--no-tui", "-q", "-o", out, str(fixed_program)]
        proc = subprocess.run(cmd, cwd=fixed_program.parent, env=session_env, capture_output=True, text=True,
                              timeout=300)
        assert proc.returncode == 0, f"tdiag run branch_fixed failed:\n{proc.stdout}\n{proc.stderr}"
        return {}

    folder = shared_dir(tmp_path_factory, "lint")
    once_per_session(folder, "records", make)
    records = {"branch": recorded("data_dependent_if.py"), "batch": recorded("batch_size_change.py")}
    for name, (_, proc) in records.items():
        assert proc.returncode == 0, f"tdiag run {name} failed:\n{proc.stderr}"
    return {"branch": records["branch"][0], "branch_fixed": folder / "records" / "branch_fixed",
            "batch": records["batch"][0]}
