from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

PROGRAMS = Path(__file__).parent / "programs"
REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def inductor_env(tmp_path_factory) -> dict[str, str]:
    """One Inductor cache for the whole session: each distinct compile costs seconds on a small CPU."""
    env = dict(os.environ)
    env["TORCHINDUCTOR_CACHE_DIR"] = str(tmp_path_factory.mktemp("inductor-cache"))
    return env


def tdiag_run(program: str, out: Path, env: dict[str, str], *extra: str) -> Path:
    cmd = [sys.executable, "-m", "tdiag", "run", "--no-tui", "-q", *extra, "-o", str(out), str(PROGRAMS / program)]
    proc = subprocess.run(cmd, env=env, cwd=REPO, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return out


@pytest.fixture(scope="session")
def train_runs(inductor_env, tmp_path_factory):
    """The kernel fixture run twice on one cache: cold (compiles) then warm (FX graph cache hits)."""
    base = tmp_path_factory.mktemp("runs")
    cold = tdiag_run("kernels_train.py", base / "cold", inductor_env)
    warm = tdiag_run("kernels_train.py", base / "warm", inductor_env)
    return cold, warm


@pytest.fixture(scope="session")
def cold_analysis(train_runs):
    from tdiag.analyzer import build

    return build(train_runs[0])


@pytest.fixture(scope="session")
def warm_analysis(train_runs):
    from tdiag.analyzer import build

    return build(train_runs[1])


def line_of(program: str, marker: str) -> int:
    """The 1-based line of the fixture that carries ``marker`` (so tests never hard-code line numbers)."""
    lines = (PROGRAMS / program).read_text().splitlines()
    return next(i for i, text in enumerate(lines, 1) if marker in text)
