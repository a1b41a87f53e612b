"""Measured cost in the HTML report (issue 11): the time-breakdown chart, cost on every finding (server-rendered and
built by the page script), sort by cost, and the annotated source's heat.

The measured record is a real `tdiag run` of tests/runtime/programs/hot_loop_break.py (a break called 50 times a
step, another once): by hand, the hot loop's break is the costliest finding and its line the hottest. The lazy-row
case uses the fixture factory's many-findings Analysis with costs written by hand.
"""

from __future__ import annotations

import pytest
from fixtures.analysis_factory import PLOTLY_STUB, hostile_many
from report_dom import parse
from tdiag.analyzer.model import Cost, RuntimeSummary
from tdiag.reports.cost_format import cost_label
from tdiag.reports.cost_heat import HEAT_LEVELS
from tdiag.reports.html import write_html
from tdiag.reports.html.page import FULL_FINDINGS
from tdiag.reports.html.render import render
from tdiag_testing import HOT_LINE, ONCE_LINE, hot_finding


@pytest.fixture(scope="module")
def measured(hot_loop_analysis):
    return hot_loop_analysis



def test_structure_cost_chart_and_heat(measured):
    html = render(measured, plotly_bundle=PLOTLY_STUB, compress=False)
    dom = parse(html)
    assert dom.find(id="chart-runtime") is not None
    hot = hot_finding(measured)
    article = dom.find(id=hot.anchor)
    assert article.attrs["data-cost"] == str(hot.cost.total_s)
    badge = article.find(cls="cost")
    assert badge.text() == cost_label(hot.cost) and badge.text().startswith("≥") and "ms/step" in badge.text()
    # a break's cost is a lower bound on what removing it saves: the Cost row says what it leaves out
    assert "lower bound" in article.find(cls="cost-caveat").text()
    # every finding with a cost shows it; the lead says the order is by measured cost
    assert len(dom.find_all(cls="cost", tag="span")) == sum(1 for f in measured.findings if cost_label(f.cost) != "-")
    assert "Ranked by measured cost" in html
    hot_line = next(n for n in dom.find_all(tag="span") if n.attrs.get("id", "").endswith(f"-L{HOT_LINE}"))
    assert f"heat-{HEAT_LEVELS}" in hot_line.attrs["class"].split() and "ms/step" in hot_line.attrs["title"]
    once_line = next(n for n in dom.find_all(tag="span") if n.attrs.get("id", "").endswith(f"-L{ONCE_LINE}"))
    assert any(f"heat-{level}" in once_line.attrs["class"].split() for level in range(1, HEAT_LEVELS))


@pytest.mark.browser
def test_browser_draws_the_time_chart_and_sorts_by_cost(browser, measured, tmp_path):
    path = tmp_path / "report.html"
    write_html(measured, path)
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(path.as_uri())
    page.wait_for_function("() => document.documentElement.dataset.ready === 'charts'")
    page.wait_for_selector("#chart-runtime svg.main-svg", state="attached")
    legend = page.eval_on_selector_all("#chart-runtime .legendtext", "els => els.map(e => e.textContent)")
    assert {"compiled", "eager (findings)", "eager (other)", "guards", "compile"} <= set(legend)
    hot = hot_finding(measured)
    assert page.text_content(f'[id="{hot.anchor}"] h3 .cost') == cost_label(hot.cost)
    # the heat shows: the hottest line's background differs from a cooler heat line's and from a plain finding line's
    colour = "id => getComputedStyle(document.querySelector(`[id$='-L${id}']`)).backgroundColor"
    hot_bg, once_bg = page.evaluate(colour, HOT_LINE), page.evaluate(colour, ONCE_LINE)
    plain_hit = page.evaluate("getComputedStyle(document.querySelector('.src .hit:not(.heat)') || document.body).backgroundColor")
    assert hot_bg != once_bg and hot_bg != plain_hit and hot_bg not in ("rgba(0, 0, 0, 0)", "transparent")
    # sort by cost: measured seconds, largest first, then the uncosted in rank order
    page.select_option("#sort", "cost")
    costs = page.eval_on_selector_all("article.finding", "els => els.map(e => e.dataset.cost ? +e.dataset.cost : -1)")
    ids = page.eval_on_selector_all("article.finding", "els => els.map(e => e.id)")
    # the costliest finding at a line (a RUN finding about the whole step may cost more and list first)
    assert [i for i in ids if not i.startswith("RUN")][0] == hot.anchor
    assert costs == sorted(costs, reverse=True)
    page.select_option("#sort", "rank")
    order = page.eval_on_selector_all("article.finding", "els => els.map(e => e.id)")
    assert order[: len(measured.findings)] == [f.anchor for f in measured.findings][: len(order)]
    assert errors == []
    page.close()


@pytest.mark.browser
def test_lazy_findings_carry_their_cost(browser, tmp_path):
    analysis = hostile_many(FULL_FINDINGS + 20)
    analysis.summary.runtime = RuntimeSummary(status="measured", steps=10, window_s=0.5, compiled_s=0.2, eager_s=0.3,
                                              attributed_s=0.1, unattributed_s=0.2, basis="measured")
    lazy = analysis.findings[FULL_FINDINGS + 5]
    lazy.cost = Cost(total_s=0.04, per_call_ms=4.0, share=0.08, basis="measured", caveat="leaves out the split <b>",
                     lower_bound=True)
    path = tmp_path / "many.html"
    write_html(analysis, path)
    page = browser.new_page()
    page.goto(path.as_uri())
    page.wait_for_function("() => ['findings', 'charts'].includes(document.documentElement.dataset.ready)")
    anchor = page.eval_on_selector_all("#lazy-findings article.finding", "els => els.map(e => e.id)")[5]
    badge = page.text_content(f'[id="{anchor}"] h3 .cost')
    assert badge == "≥4 ms/step (8%)"  # a lower bound is marked as one
    assert page.get_attribute(f'[id="{anchor}"]', "data-cost") == "0.04"
    page.click(f'[id="{anchor}"] details.more > summary')
    detail = page.text_content(f'[id="{anchor}"] dd.cost-detail')
    assert "≥4 ms/step (8%) measured in the runtime window" in detail
    assert page.text_content(f'[id="{anchor}"] dd.cost-detail .cost-caveat') == "leaves out the split <b>"  # as text
    page.close()
