"""FSDP2 + tensor parallelism on a 2x2 mesh of 4 gloo ranks (DTensor on the CPU), through the differential harness
(torch's counters under plain torchrun are the oracle); collective counts worked out by hand."""

from __future__ import annotations

from pathlib import Path

import gloo_exit
import pytest
from differential_testing import MODES, PLAIN, compare, load, run
from tdiag.analyzer import build

# several real runs per test (fix rounds, ranks, cold compiles): scripts/test runs it in the slow step (issue 45)
pytestmark = pytest.mark.slow

TP_PROGRAM = Path(__file__).parent / "programs" / "fsdp_tp.py"


def _per_rank_recompiles(plain) -> dict[int, int]:
    return {int(role.split(":")[0][len("rank"):]): c["recompiles"] for role, c in plain.counters.items()}


def test_fsdp_with_tensor_parallel_on_a_2x2_mesh(tmp_path):
    """4 ranks: TP over "tp" (fc1 colwise, fc2 rowwise), FSDP2 over "dp", 2 blocks compiled per block. By hand, per
    step and rank: each block is its own FSDP root (not resharded after forward): 2 all-gathers, 2 reduce-scatters;
    TP: one all-reduce of each block's rowwise output in forward, one of the colwise input's gradient in backward for
    the second block only (the first block's input needs no gradient): 3 all-reduces."""
    program = load(TP_PROGRAM)
    assert program.nproc == 4
    plain = run(program, PLAIN, False, tmp_path, tmp_path / "cache")
    under = run(program, MODES["run"], False, tmp_path, tmp_path / "cache")
    verdict = compare(plain, under)
    assert verdict.differences == []
    gloo_exit.assert_plain_job_finished(plain, verdict, 4)
    assert _per_rank_recompiles(plain) == {r: 1 for r in range(4)}
    (record,) = tmp_path.glob("fsdp_tp-run-*/record")
    a = build(record)
    (rcp,) = [f for f in a.findings if f.code.startswith("RCP")]
    block_call = next(i for i, t in enumerate(TP_PROGRAM.read_text().splitlines(), 1) if "# BLOCK CALL" in t)
    assert (rcp.code, rcp.by_design, rcp.line, rcp.ranks) == ("RCP006", True, block_call, {r: 1 for r in range(4)})
    for rank, window in a.summary.runtime.per_rank.items():
        steps, collectives = window["steps"], window["collectives"]
        counts = {kind: collectives[kind]["calls"] / steps for kind in ("all-gather", "reduce-scatter", "all-reduce")}
        assert counts == {"all-gather": 2, "reduce-scatter": 2, "all-reduce": 3}, (rank, collectives)
        assert window["eager_parts"]["communication"] > 0
