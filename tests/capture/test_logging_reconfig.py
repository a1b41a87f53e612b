"""The capture survives the program reconfiguring logging, at start-up and between compiles.

dictConfig/fileConfig (disable_existing_loggers=True by default), logging.disable, every handler cleared, a
configured "torch" parent (which empties torch.__trace's handlers) and the trace logger's own level raised and
disabled: each would blind a plain handler on torch's structured-trace logger. The findings must be those of the
unconfigured run and of the program as written (one print() break, one .item() break), and the program's own log
output must be what python alone prints.
"""

from __future__ import annotations

import pytest
from capture_util import under_python, under_tdiag
from tdiag.analyzer import build

PROGRAM = "logging_reconfig.py"
# Written from the program: print() at line 65 breaks the first graph, .item() at line 71 the second.
EXPECTED_BREAKS = {("BRK004", 65), ("BRK002", 71)}


def break_findings(run_dir):
    analysis = build(run_dir)
    return analysis, {(f.code, f.line) for f in analysis.findings if f.family == "BRK"}


@pytest.fixture(scope="module")
def unconfigured(tmp_path_factory, session_env):
    run_dir = tmp_path_factory.mktemp("unconfigured") / "run"
    done = under_tdiag(run_dir, [PROGRAM, "none"], session_env)
    assert done.returncode == 0, done.stderr
    return break_findings(run_dir)


def test_unconfigured_run_sees_both_breaks(unconfigured):
    analysis, breaks = unconfigured
    assert breaks == EXPECTED_BREAKS
    assert analysis.summary.graph_breaks == 2
    assert analysis.run.capture_problems == []


@pytest.mark.parametrize("mode", ["dictconfig", "fileconfig", "disable", "cleared", "torch_parent", "level"])
def test_capture_survives_logging_reconfiguration(mode, unconfigured, tmp_path, session_env):
    plain = under_python([PROGRAM, mode], session_env)
    run_dir = tmp_path / "run"
    done = under_tdiag(run_dir, [PROGRAM, mode], session_env)
    assert done.returncode == plain.returncode == 0, done.stderr
    assert done.stdout == plain.stdout  # the program's own logging, through its own configuration, unchanged
    # the configuration really took effect: its handler printed the app's line (logging.disable silences it)
    assert (f"app WARNING configured {mode}" in done.stdout.splitlines()) == (mode != "disable")
    analysis, breaks = break_findings(run_dir)
    assert breaks == unconfigured[1] == EXPECTED_BREAKS
    assert analysis.summary.graph_breaks == unconfigured[0].summary.graph_breaks
    assert len(analysis.graphs) == len(unconfigured[0].graphs)
    assert analysis.run.capture_problems == []
