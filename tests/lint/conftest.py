"""Fixtures for the lint/CI tests: the shared fixture Analysis, and real records made once per session."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from lint_helpers import BRANCH_FIXED, PROGRAMS, TESTS
from tdiag.analyzer.model import Analysis
from tdiag_testing import once_per_session, shared_dir


@pytest.fixture
def sample() -> Analysis:
    with open(TESTS / "data" / "sample_analysis.json", encoding="utf-8") as fh:
        return Analysis.from_dict(json.load(fh))


@pytest.fixture(scope="session")
def lint_records(tmp_path_factory, session_env) -> dict[str, Path]:
    """name -> run directory, recorded by real `tdiag run` subprocesses started together to save wall time, once per
    session for both xdist workers (the tests only read the records)."""
    programs = {"branch": PROGRAMS / "data_dependent_if.py", "branch_fixed": None, "batch": PROGRAMS / "batch_size_change.py"}

    def make(base: Path) -> dict:
        fixed_program = base / "src" / "data_dependent_if.py"
        fixed_program.parent.mkdir(parents=True)
        fixed_program.write_text(BRANCH_FIXED)
        procs = {
            name: subprocess.Popen(
                [sys.executable, "-m", "tdiag", "run", "--no-tui", "-q", "-o", str(base / name), str(program)],
                cwd=program.parent, env=session_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            )
            for name, program in {**programs, "branch_fixed": fixed_program}.items()
        }
        for name, proc in procs.items():
            out, err = proc.communicate(timeout=300)
            assert proc.returncode == 0, f"tdiag run {name} failed:\n{out}\n{err}"
        return {}

    folder = shared_dir(tmp_path_factory, "lint")
    once_per_session(folder, "records", make)
    return {name: folder / "records" / name for name in programs}
