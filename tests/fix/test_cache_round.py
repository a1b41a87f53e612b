"""A cache fix's verdict (tdiag/fixing/cache_verify.py) and how the verify table shows it, on hand-made numbers:
the margin (10% of the fastest warm run before, at least 0.1 s), the FX-graph-hit requirement, the verdict line and
the saved JSON. The end-to-end run on real Inductor is tests/compile_cache/test_cache_fix.py."""

from __future__ import annotations

import io
import json
import re

import pytest

from tdiag.fixing.cache_verify import CacheFixVerification, WarmRun, is_cache_fix, judge
from tdiag.fixing.compare import Comparison, Metrics
from tdiag.fixing.plan import PlannedPatch
from tdiag.fixing.render import print_report
from tdiag.fixing.report import FixReport
from tdiag.fixing.round import Round, Verification


def _side(label: str, warm: list[float], hits: int) -> WarmRun:
    cache = {"fx_graph": {"hit": hits, "miss": 0, "bypass": 0}}
    return WarmRun(label, 9.0, min(warm), cache, (0, *[0] * len(warm)), warm)


@pytest.mark.parametrize("before, after, hits, pays, words", [
    ([4.0, 4.4], [1.7, 2.9], 1, True, "less warm compile time beyond the margin"),  # fastest 4.0 vs 1.7
    ([4.0], [3.7], 1, False, "within the margin"),  # 0.3 s saved, 0.4 s needed (10% of 4.0)
    ([0.5], [0.45], 1, False, "within the margin"),  # 10% is 0.05 s, but the floor is 0.1 s
    ([4.0], [1.0], 0, False, "no FX graph cache hit"),  # faster, but not from the cache: not a cache fix's saving
])
def test_the_margin_and_the_hits_decide(before, after, hits, pays, words):
    result = judge(CacheFixVerification(_side("before", before, 0), _side("after", after, hits)))
    assert result.pays is pays and words in result.judged, result.judged


def test_only_sets_of_cache_findings_are_verified_on_warm_runs():
    cch = PlannedPatch("CCH001@p.py:3", "p.py", "", "Remove", ["CCH001"])
    brk = PlannedPatch("BRK001@p.py:5", "p.py", "", "Use torch.where", ["BRK001"])
    assert is_cache_fix([cch]) and not is_cache_fix([cch, brk]) and not is_cache_fix([])


def _metrics(compile_s: float) -> Metrics:
    return Metrics(graphs=1, graph_breaks=0, recompiles=0, eager_fallbacks=0, compile_time_s=compile_s,
                   step_time_s=None, steps_measured=0, run_time_s=12.0, exit_code=0)


def test_the_verdict_line_and_the_saved_json_carry_the_warm_compile_seconds(monkeypatch):
    monkeypatch.setenv("NO_COLOR", "1")
    result = judge(CacheFixVerification(_side("before", [4.1, 4.6], 0), _side("after", [1.7, 1.9], 2)))
    patch = PlannedPatch("CCH001@p.py:9", "p.py", "", "Remove `torch._inductor.config.fx_graph_cache = False`",
                         ["CCH001"])
    c = Comparison("all patches", [patch.id], _metrics(4.1), _metrics(1.7), True, [], [], ["CCH001"], [],
                   improved=[result.line()], cache=result, kept=True)
    report = FixReport("RECORD", [patch], Verification([Round(1, [patch], [c], [patch], "together they paid")]))
    out = io.StringIO()
    print_report(report, out, show_diffs=False)
    lines = out.getvalue().splitlines()
    assert ("round 1: all patches: better: warm start: 4.1s compiling before, 1.7s after (+2.4s saved per run)  "
            "(kept)") in lines
    row = next(line for line in lines if line.lstrip().startswith("compile time"))
    assert [cell.strip() for cell in re.split(r"│|┃", row)] == ["compile time (warm run)", "4.10 s", "1.70 s"], row
    assert any(line.startswith("warm start: 4.1s compiling before") and "hits on the warm run: 0 before, 2 after"
               in line for line in lines), lines
    saved = json.loads(json.dumps(report.to_dict(), default=str))["verification"][0]["cache"]
    assert (saved["before"]["warm_compile_s"], saved["after"]["warm_compile_s"], saved["saved_s"]) == (4.1, 1.7, 2.4)
    assert (saved["before"]["fx_hits"], saved["after"]["fx_hits"], saved["pays"]) == (0, 2, True)
    assert saved["line"] == result.line()
