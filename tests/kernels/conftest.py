"""Session fixtures: one real Inductor run per program (tens of seconds each on a small CPU), shared by the workers."""

from __future__ import annotations

import copy

import pytest
from kernels_testing import MIXER, MLP, MLP_WINDOW, VIT, tdiag_run
from tdiag.analyzer import kernel_time
from tdiag.analyzer.model import GraphRuntime, RuntimeSummary
from tdiag_testing import once_per_session, shared_dir


@pytest.fixture(scope="session")
def kernels_env(session_env) -> dict[str, str]:
    """The session's one Inductor cache (tests/conftest.py): a program another test already compiled in this worker
    (the corpus runs the same two models) is a cache hit here, which the attribution must survive anyway."""
    return dict(session_env)


def _analysis(name, program, tmp_path_factory, env, *window):
    """One real Inductor run of ``program`` for the whole session, shared by the xdist workers (each builds its own
    Analysis from it; the record is never written to)."""
    from tdiag.analyzer import build

    def make(out):
        tdiag_run(program, out / "run", env, *window)
        return {}

    base = shared_dir(tmp_path_factory, "kernel-runs")
    once_per_session(base, name, make)
    return build(base / name / "run")


# One real Inductor run per program for the whole session (Inductor on CPU costs tens of seconds each).
@pytest.fixture(scope="session")
def mlp(kernels_env, tmp_path_factory):
    return _analysis("mlp", MLP, tmp_path_factory, kernels_env, *MLP_WINDOW)


@pytest.fixture(scope="session")
def mlp_warm(mlp, kernels_env, tmp_path_factory):
    """The MLP again on the same caches: AOTAutograd and FX graph cache hits, nothing compiled."""
    return _analysis("mlp_warm", MLP, tmp_path_factory, kernels_env, *MLP_WINDOW)


@pytest.fixture(scope="session")
def vit(kernels_env, tmp_path_factory):
    return _analysis("vit", VIT, tmp_path_factory, kernels_env)


@pytest.fixture(scope="session")
def mixer(kernels_env, tmp_path_factory):
    return _analysis("mixer", MIXER, tmp_path_factory, kernels_env)


@pytest.fixture(scope="session")
def timed(mlp):
    """The MLP's kernel table with device time per launch written by hand: the backward GEMMs of the last Linear
    dominate, so it leads the table."""
    analysis = copy.deepcopy(mlp)
    (g,) = analysis.graphs
    g.runtime = GraphRuntime(calls=20, host_s=0.004, device_s=0.004)
    analysis.summary.runtime = RuntimeSummary(status="measured", steps=20, device="cuda", window_s=0.010,
                                              compiled_s=0.006, basis="measured")
    kernel_time.attach(analysis, {
        g.fx_keys["forward"]: {"aten::addmm": [40, 800], next(k.name for k in g.kernels if "gelu" in k.name): [20, 400]},
        g.fx_keys["backward"]: {"aten::mm": [60, 6000], "cpp_fused_sum_1": [20, 100]},
    }, None)
    return analysis
