"""Measured cost in the TUI (issue 11): cost column and order, cost in the detail, runtime breakdown, source heat.

The record is a real `tdiag run` of tests/runtime/programs/hot_loop_break.py (a break called 50 times a step and
one called once): by hand, the hot loop's break is the costliest finding and its line the hottest in the file.
"""

from __future__ import annotations

import io

import pytest
from fixtures import analysis_factory
from rich.console import Console
from tdiag.analyzer.fix_status import label as fix_label
from tdiag.reports.cost_format import cost_label, cost_short
from tdiag.reports.cost_heat import HEAT_LEVELS
from tdiag.tui import make_app
from tdiag.tui.screens.findings import COLUMNS, COST_COLUMN
from tdiag.tui.widgets.source_view import HEAT_STYLES, SourceView
from tdiag_testing import HOT_LINE, ONCE_LINE, hot_finding


@pytest.fixture(scope="module")
def measured(hot_loop_analysis):
    return hot_loop_analysis


def _text(renderable, width: int = 200) -> str:
    console = Console(width=width, record=True, file=io.StringIO())
    console.print(renderable)
    return console.export_text()



async def test_findings_sorted_by_cost_with_a_cost_column(measured):
    app = make_app(measured)
    async with app.run_test(size=(160, 44)) as pilot:
        await pilot.press("2")
        screen = app.screen
        assert screen.query_state.sort == "cost"
        shown = [measured.findings[i] for i in screen.visible_findings]
        # the costliest finding at a line (a RUN finding about the whole step may cost more: it lists first or not)
        assert [f for f in shown if f.family != "RUN"][0] is hot_finding(measured)
        # the findings at a line in cost order; a whole-step RUN finding ranks after the breaks it yields to
        # (issue 62: a generic finding never outranks a measured break unless more than 4x its cost: ranking.py)
        measured_costs = [f.cost.total_s for f in shown
                          if f.family != "RUN" and f.cost and f.cost.basis == "measured" and f.cost.total_s > 0]
        assert measured_costs == sorted(measured_costs, reverse=True)
        assert "cost/step" in _text(screen.query_one("#findings-header").render())
        hot = hot_finding(measured)
        cells = screen._cells(measured.findings.index(hot))
        assert cells[4].plain == cost_short(hot.cost) == f"≥{hot.cost.per_call_ms:.3g} ms"  # a break's: a lower bound
        # "o" steps on to another order; clicking the cost header brings cost order back
        await pilot.press("o")
        assert screen.query_state.sort != "cost"
        cost_x = sum(width + 2 for _, width in COLUMNS[:4]) + 1
        await pilot.click("#findings-header", offset=(cost_x, 0))
        assert screen.query_state.sort == "cost" and not screen.query_state.descending
        at_lines = [i for i in screen.visible_findings if measured.findings[i].family != "RUN"]
        assert at_lines[0] == measured.findings.index(hot_finding(measured))
        for _ in range(screen.visible_findings.index(at_lines[0])):  # past a RUN finding listed above it
            await pilot.press("down")
        await pilot.pause()  # the detail pane repaints after the cursor moves (a RUN001 under load lists first)
        # the detail pane names the cost and how it was measured
        detail = _text(screen.query_one("#finding-detail").rendered)
        assert f"cost: {cost_label(hot_finding(measured).cost)}  measured in the runtime window" in detail
        # what a break's cost leaves out of the saving is folded to one line (the Fix stays in view) until `c`
        assert "a lower bound (c: what the cost leaves out)" in detail
        assert "a lower bound on what removing the break saves" not in " ".join(detail.split())
        assert detail.index(fix_label("Fix", hot_finding(measured)) + ": ") < detail.index("cost: ")
        await pilot.press("c")
        await pilot.pause()
        detail = _text(screen.query_one("#finding-detail").rendered)
        assert "a lower bound on what removing the break saves" in " ".join(detail.split())
        await pilot.press("c")
        await pilot.pause()
        assert "(c: what the cost leaves out)" in _text(screen.query_one("#finding-detail").rendered)


async def test_overview_shows_the_runtime_breakdown(measured):
    app = make_app(measured)
    async with app.run_test(size=(160, 44)) as pilot:
        await pilot.pause()
        text = _text(app.screen.query_one("#runtime").content)
        r = measured.summary.runtime
        assert f"{r.steps} steps" in text and "ms/step" in text
        for part in ("compiled", "eager (findings)", "eager (other)", "guards", "compile"):
            assert part in text
        assert "Top problems by measured cost" in _text(app.screen.query_one("#top-title").content)


async def test_source_heat_marks_the_hot_loop_line(measured):
    app = make_app(measured)
    async with app.run_test(size=(160, 44)) as pilot:
        await pilot.press("5")
        path = hot_finding(measured).path
        app.screen.open_file(path, HOT_LINE)
        await pilot.pause()
        view = app.screen.query_one(SourceView)
        assert view.heat_level(HOT_LINE) == HEAT_LEVELS
        assert 1 <= view.heat_level(ONCE_LINE) < HEAT_LEVELS  # 1 call a step against 50
        assert view.heat_level(1) == 0
        number = view._gutter(HOT_LINE).__iter__().__next__()
        assert number.style.bgcolor == HEAT_STYLES[HEAT_LEVELS].bgcolor
        summary = _text(app.screen.line_summary(path, HOT_LINE))
        assert "measured here: " in summary and "ms/step" in summary and "of the window" in summary


async def test_record_without_runtime_keeps_impact_order_and_no_cost():
    sample = analysis_factory.sample_analysis()
    assert sample.summary.runtime is None
    app = make_app(sample)
    async with app.run_test(size=(160, 44)) as pilot:
        assert not app.screen.query("#runtime")
        await pilot.press("2")
        assert app.screen.query_state.sort == "impact"
        assert len(app.screen._cells(0)) == len(COLUMNS) and COST_COLUMN[0] not in _text(app.screen.query_one("#findings-header").render())
        await pilot.press("5")
        assert app.index.heat == {}
