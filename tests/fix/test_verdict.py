"""One definition of better and worse (analyzer/verdict.py): `tdiag diff` and `tdiag fix` judge the same pair alike.

The pair is written by hand: the sample record's analysis, and the same with one graph that failed to compile and
ran eagerly (an eager fallback) or with one recompile fewer. Issue 43 found diff calling the first "no regressions"
while fix called it worse.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from tdiag.analyzer.diff import diff
from tdiag.analyzer.model import Analysis
from tdiag.analyzer.verdict import count_changes, judge_times

from tdiag.fixing.compare import compare
from tdiag.fixing.verify import RunResult

SAMPLE = Path(__file__).parents[1] / "data" / "sample_analysis.json"


@pytest.fixture(scope="module")
def base() -> Analysis:
    return Analysis.from_dict(json.loads(SAMPLE.read_text(encoding="utf-8")))


def _run(analysis: Analysis) -> list[tuple[Analysis, RunResult]]:
    return [(analysis, RunResult("run", Path("."), 0, "loss 1.0\n", "", 1.0))]


def test_one_more_eager_fallback_is_worse_for_diff_and_for_fix(base):
    worse = copy.deepcopy(base)
    worse.summary.eager_fallbacks = base.summary.eager_fallbacks + 1
    assert diff(base, worse).regressions() == [f"eager fallbacks: {base.summary.eager_fallbacks} -> "
                                               f"{base.summary.eager_fallbacks + 1}"]
    judged = compare("all patches", [], _run(base), _run(worse))
    assert judged.problems == [f"more eager fallbacks: {base.summary.eager_fallbacks} -> "
                               f"{base.summary.eager_fallbacks + 1}"]
    assert not judged.ok


def test_one_recompile_fewer_is_better_for_fix_and_no_regression_for_diff(base):
    better = copy.deepcopy(base)
    better.summary.recompiles = base.summary.recompiles - 1
    assert diff(base, better).regressions() == []
    judged = compare("all patches", [], _run(base), _run(better))
    assert judged.ok and judged.pays
    assert judged.improved == [f"fewer recompiles: {base.summary.recompiles} -> {base.summary.recompiles - 1}"]


def test_counts_and_times_judged_in_one_place():
    changes = count_changes({"graphs": 9, "graph_breaks": 6, "recompiles": 6, "eager_fallbacks": 0},
                            {"graphs": 1, "graph_breaks": 6, "recompiles": 7, "eager_fallbacks": 0})
    assert [(c.name, c.better, c.worse) for c in changes] == [("graphs", True, False), ("recompiles", False, True)]
    # one run a side (all `tdiag diff` holds) is never a timing verdict, however far apart
    assert not judge_times([0.001], [0.010]).judged
    assert judge_times([0.0010, 0.0011], [0.0020, 0.0021]).change == "slower"
    assert judge_times([0.0020, 0.0021], [0.0010, 0.0011]).change == "faster"
    assert not judge_times([0.0010, 0.0015], [0.0012, 0.0013]).judged  # ranges overlap


def test_one_run_a_side_is_judged_only_when_asked_and_only_faster_by_the_decisive_factor():
    from tdiag.analyzer.verdict import DECISIVE_FACTOR, judge_times

    ms = 1e-3
    assert judge_times([3.14 * ms], [1.93 * ms]).change is None  # `tdiag diff`: one run a side is never a verdict
    assert judge_times([3.14 * ms], [1.93 * ms], decisive=True).change == "faster"
    # within what one disturbed run has measured: no verdict, more runs decide
    assert judge_times([3.14 * ms], [3.14 / (DECISIVE_FACTOR - 0.1) * ms], decisive=True).change is None
    # slower is never read from one run: a disturbed after-run would refuse a lever every other run shows paying
    assert judge_times([1.93 * ms], [3.14 * ms], decisive=True).change is None


def test_tight_runs_apart_by_less_than_the_margin_are_a_verdict():
    """A GPU's runs spread by a fraction of a percent: big_bert_cls's fused AdamW on an H100 measured 24.688-24.750 ms
    against 22.643-22.686 ms (8% faster, 0.3% spread) and was left "within the spread" by the 10% margin. A gap of
    at least 3% and three times the runs' own spread is a verdict; a CPU's wider runs keep the margin."""
    ms = 1e-3
    fused = judge_times([24.688 * ms, 24.750 * ms], [22.643 * ms, 22.686 * ms])
    assert fused.change == "faster" and "3x the runs' own spread" in fused.how
    assert judge_times([22.643 * ms, 22.686 * ms], [24.688 * ms, 24.750 * ms]).change == "slower"
    # the same 8% on runs that spread 5% (a busy CPU): the gap is not three spreads, no verdict
    assert judge_times([24.0 * ms, 25.2 * ms], [21.0 * ms, 22.1 * ms]).change is None
    # tight, but a 1% gain: below the smallest gain a verdict is given for
    assert judge_times([10.00 * ms, 10.01 * ms], [9.88 * ms, 9.89 * ms]).change is None
