"""``tdiag run --deep``: exact IR classes per fused group and per-kernel C++ compile time (caches bypassed)."""

from __future__ import annotations

import pytest
from compiler_testing import tdiag_run

pytestmark = pytest.mark.inductor


def test_deep_mode_records_compile_time_and_fusion_groups(inductor_env, tmp_path):
    from tdiag.analyzer import build
    from tdiag.analyzer.events import load

    run = tdiag_run("kernels_train.py", tmp_path / "deep", inductor_env, "--deep")
    log = load(run)
    types = {e.get("type") for e in log.other}
    assert {"fusion_groups", "kernel_compile", "lowering_info"} <= types
    assert not [k for k in log.stats if k.startswith("unknown:")]
    analysis = build(run)
    graph = next(g for g in analysis.graphs if g.kernels)
    assert graph.cache.get("fx_graph") == "bypass"  # why deep mode is opt-in
    generated = [k for k in graph.kernels if k.backend == "cpp"]
    assert generated and all(k.launch.get("compile_s", -1) >= 0 for k in generated)
    assert [k.kind for k in generated if "softmax" in k.name] == ["reduction", "reduction"]
