"""Filtering, sorting, search, ranks and the detail pane of the Findings screen."""

from __future__ import annotations

import io

from rich.console import Console
from tdiag.analyzer.model import SEVERITY_RANK
from tdiag.tui import make_app
from tdiag.tui.format import SOURCE_NOT_AVAILABLE
from tdiag.tui.screens.findings import COLUMNS


def shown(app):
    return [app.analysis.findings[i] for i in app.screen.visible_findings]


def detail_text(app) -> str:
    console = Console(width=200, record=True, file=io.StringIO())
    console.print(app.screen.query_one("#finding-detail").rendered)
    return console.export_text()


async def test_table_lists_every_finding_in_impact_order(sample_app):
    app, pilot, sample = sample_app.app, sample_app.pilot, sample_app.analysis
    await pilot.press("2")
    assert shown(app) == sample.findings
    assert app.screen.selected_finding is sample.findings[0]


async def test_family_key_cycles_through_families_then_clears(sample_app):
    app, pilot, sample = sample_app.app, sample_app.pilot, sample_app.analysis
    await pilot.press("2")
    families = sorted({f.family for f in sample.findings})
    for family in families:
        await pilot.press("f")
        assert app.screen.query_state.family == family
        assert shown(app) == [f for f in sample.findings if f.family == family]
    await pilot.press("f")
    assert app.screen.query_state.family is None
    assert len(shown(app)) == len(sample.findings)


async def test_severity_filter(sample_app):
    app, pilot, sample = sample_app.app, sample_app.pilot, sample_app.analysis
    await pilot.press("2", "s")
    worst = min((f.severity for f in sample.findings), key=SEVERITY_RANK.__getitem__)
    assert shown(app) == [f for f in sample.findings if f.severity == worst]


async def test_search_filters_as_you_type_and_escape_clears(sample_app):
    app, pilot, sample = sample_app.app, sample_app.pilot, sample_app.analysis
    target = next(f for f in sample.findings if f.code.startswith("RCP"))
    await pilot.press("2", "slash", *target.name)
    assert shown(app) == [f for f in sample.findings if target.name in f.name]
    await pilot.press("enter")
    assert app.focused.id == "findings-table"
    assert app.screen.selected_finding is target
    await pilot.press("escape")
    assert app.screen.query_state.text == ""
    assert len(shown(app)) == len(sample.findings)
    assert app.screen.id == "findings"


async def test_sort_key_and_header_click(sample_app):
    app, pilot, sample = sample_app.app, sample_app.pilot, sample_app.analysis
    await pilot.press("2", "o")
    assert app.screen.query_state.sort == "code"
    assert [f.code for f in shown(app)] == sorted(f.code for f in sample.findings)
    await pilot.press("O")
    assert [f.code for f in shown(app)] == sorted((f.code for f in sample.findings), reverse=True)
    occurrences_x = sum(width + 2 for _, width in COLUMNS[:3]) + 1  # the table pads each cell by one a side
    await pilot.click("#findings-header", offset=(occurrences_x, 0))
    assert app.screen.query_state.sort == "occurrences"
    counts = [f.occurrences for f in shown(app)]
    assert counts == sorted(counts, reverse=True)


async def test_selection_survives_filtering_and_jumps_clear_filters(sample_app):
    app, pilot, sample = sample_app.app, sample_app.pilot, sample_app.analysis
    await pilot.press("2", "down")
    chosen = app.screen.selected_finding
    await pilot.press("f")  # a family that hides the chosen finding
    if chosen.family != app.screen.query_state.family:
        app.screen.select_finding(sample.findings.index(chosen))
        await pilot.pause()
    assert app.screen.selected_finding is chosen


async def test_detail_pane_shows_torch_evidence_and_suggestion(sample_app):
    app, pilot, sample = sample_app.app, sample_app.pilot, sample_app.analysis
    finding = sample.findings[0]
    await pilot.press("2")
    text = detail_text(app)
    assert finding.evidence.reason in text
    for hint in finding.evidence.hints:
        assert hint[:40] in text
    assert finding.gb_url in text.replace("\n", "")
    assert finding.suggestion.title in text
    for frame in finding.evidence.user_stack:
        assert f"{frame.path}:{frame.line}" in text


async def test_detail_pane_highlights_the_expression(sample_app):
    app, pilot, sample = sample_app.app, sample_app.pilot, sample_app.analysis
    await pilot.press("2")
    svg = app.export_screenshot()
    finding = sample.findings[0]
    line = sample.sources[finding.path].splitlines()[finding.line - 1]
    assert line.strip().split()[0] in svg  # the source line itself is on screen


async def test_source_not_available_still_shows_reason_and_stack(sample_app):
    app, pilot, sample = sample_app.app, sample_app.pilot, sample_app.analysis
    index, finding = next((i, f) for i, f in enumerate(sample.findings) if f.path not in sample.sources)
    await pilot.press("2")
    app.screen.select_finding(index)
    await pilot.pause()
    text = detail_text(app)
    assert SOURCE_NOT_AVAILABLE in text
    assert finding.evidence.reason in text
    assert finding.library_frame.path in text


async def test_rank_selector_and_divergence_view(multi_rank):
    app = make_app(multi_rank)
    async with app.run_test() as pilot:
        await pilot.press("2", "R")
        first_rank = multi_rank.run.ranks[0]
        assert app.screen.query_state.rank == first_rank
        assert shown(app) == [f for f in multi_rank.findings if f.ranks.get(first_rank)]
        await pilot.press("x", "d")
        assert shown(app) == [f for f in multi_rank.findings if f.family == "DIV"]
        assert shown(app)


async def test_rank_key_is_harmless_on_a_single_rank_record(sample_app):
    app, pilot = sample_app.app, sample_app.pilot
    await pilot.press("2", "R")
    assert app.screen.query_state.rank is None


async def test_key_bar_lists_the_screen_keys_and_a_click_runs_one(sample_app):
    app, pilot, sample = sample_app.app, sample_app.pilot, sample_app.analysis
    await pilot.press("2")
    bar = app.screen.query_one("KeyBar")
    text = bar.render().plain
    for binding in app.screen.BINDINGS:
        if binding.show:
            assert f" {app.get_key_display(binding)} {binding.description} " in text
    await pilot.click(bar, offset=(text.index(" f Family") + 1, 0))
    assert app.screen.query_state.family == sorted({f.family for f in sample.findings})[0]
