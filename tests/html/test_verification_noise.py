"""The HTML report's verification section carries what `fix --verify` judged the output within: the program's own
run-to-run spread and eager parity (issue 63), as the record's fix/verification.json keeps them."""

from __future__ import annotations

from fixtures.analysis_factory import PLOTLY_STUB, hostile_analysis
from tdiag.reports.html.render import render

NOISE = ("2 number(s) vary run to run by themselves over 3 runs: acc 0.390..0.391 (line 1), loss 1.7040..1.7044 "
         "(line 1); compared within that (widened by 2x its spread)")


def test_the_verification_section_says_the_noise_and_the_eager_verdict():
    analysis = hostile_analysis(ranks=[0])
    analysis.verification = {
        "patches": [], "applied": None,
        "output": {"noise": NOISE, "parity": {"verdict": "same as eager", "detail": "within the compiled runs' spread"}},
        "verification": [], "round_outcomes": [], "rounds": 0, "stopped": "", "kept": [], "refused": [], "notes": [],
        "eager": None,
    }
    html = render(analysis, plotly_bundle=PLOTLY_STUB, compress=False)
    assert "acc 0.390..0.391 (line 1)" in html and "eager parity: same as eager" in html


def test_a_report_without_a_noise_measure_says_none():
    analysis = hostile_analysis(ranks=[0])
    analysis.verification = {"patches": [], "applied": None, "verification": [], "round_outcomes": [], "rounds": 0,
                             "stopped": "", "kept": [], "refused": [], "notes": [], "eager": None}
    html = render(analysis, plotly_bundle=PLOTLY_STUB, compress=False)
    assert "eager parity" not in html and 'id="verification"' in html
