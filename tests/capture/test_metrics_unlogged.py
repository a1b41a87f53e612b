"""Graphs whose compilation metrics torch failed to log are still counted, and the record says what is unknown.

On torch 2.11 a function in `ignore_logger_methods` makes torch's metrics logging raise at every compile: tdiag
counted no graph at all ("fewer graphs: 4 -> 0" for GPT-2's logger patch on the H100). The oracle is torch's own
counter (`unique_graphs`) printed by the program run without tdiag.
"""

from __future__ import annotations

from capture_util import under_python, under_tdiag
from tdiag.analyzer import build

INCOMPLETE = "capture incomplete"


def test_graphs_without_metrics_are_counted_and_the_gap_is_named(tmp_path, session_env):
    plain = under_python(["metrics_unlogged.py"], session_env)
    assert plain.returncode == 0, plain.stderr
    assert "Unexpected exception logging compilation metrics" in plain.stderr  # torch's own failure, without tdiag
    torch_graphs = int(plain.stdout.split("graphs ")[-1])
    assert torch_graphs >= 2

    run_dir = tmp_path / "run"
    done = under_tdiag(run_dir, ["metrics_unlogged.py"], session_env)
    assert done.returncode == 0 and done.stdout == plain.stdout
    analysis = build(run_dir)
    assert analysis.summary.graphs == torch_graphs
    assert {g.code_name for g in analysis.graphs} >= {"f"}
    assert all(g.path == "metrics_unlogged.py" for g in analysis.graphs if g.code_name == "f")
    (problem,) = analysis.run.capture_problems
    assert problem.what == "compilation metrics" and problem.count == torch_graphs
    assert f"torch logged no compilation metrics for {torch_graphs} of {torch_graphs} graphs" in problem.message
    assert INCOMPLETE in done.stderr
