from __future__ import annotations

import os

import pytest
from compiler_testing import tdiag_run


@pytest.fixture(scope="session")
def inductor_env(tmp_path_factory) -> dict[str, str]:
    """One Inductor cache for the whole session: each distinct compile costs seconds on a small CPU."""
    env = dict(os.environ)
    env["TORCHINDUCTOR_CACHE_DIR"] = str(tmp_path_factory.mktemp("inductor-cache"))
    return env


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
