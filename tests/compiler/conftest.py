from __future__ import annotations

import pytest
from compiler_testing import tdiag_run
from tdiag_testing import once_per_session, shared_dir


@pytest.fixture(scope="session")
def inductor_env(session_env) -> dict[str, str]:
    """The session's one Inductor cache (tests/conftest.py), shared by the xdist workers: a fresh cache directory
    costs ~8 s of g++ (CPU ISA probes) before the first kernel, and each distinct compile costs seconds on a small
    CPU."""
    return dict(session_env)


@pytest.fixture(scope="session")
def train_runs(inductor_env, tmp_path_factory):
    """The kernel fixture run twice on one cache: cold (compiles) then warm (FX graph cache hits). Once per session,
    whichever worker asks first (the tests read the two records, never write to them)."""
    base = shared_dir(tmp_path_factory, "compiler-runs")

    def make(out):
        # a cache of its own, new each session: the cold run must compile even where the session's cache is one kept
        # between test runs (scripts/test), which an earlier run of this very program filled
        cache = out / "cache"
        env = {**inductor_env, "TORCHINDUCTOR_CACHE_DIR": str(cache), "TRITON_CACHE_DIR": str(cache / "triton")}
        tdiag_run("kernels_train.py", out / "cold", env)
        tdiag_run("kernels_train.py", out / "warm", env)
        return {}

    once_per_session(base, "kernels_train", make)
    return base / "kernels_train" / "cold", base / "kernels_train" / "warm"


@pytest.fixture(scope="session")
def cold_analysis(train_runs):
    from tdiag.analyzer import build

    return build(train_runs[0])


@pytest.fixture(scope="session")
def warm_analysis(train_runs):
    from tdiag.analyzer import build

    return build(train_runs[1])
