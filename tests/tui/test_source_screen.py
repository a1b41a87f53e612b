"""The Source screen: gutter marks derived from the Analysis, mark navigation, and findings per line."""

from __future__ import annotations

from shared_app import screen_text
from tdiag.tui.index import MARK_BREAK, MARK_KERNEL, MARK_RECOMPILE, AnalysisIndex
from tdiag.tui.widgets.source_view import SourceView


def test_marks_cover_breaks_recompiles_and_kernel_lines(sample):
    marks = AnalysisIndex(sample).marks
    for graph_break in sample.breaks:
        assert MARK_BREAK in marks[graph_break.site.path][graph_break.site.line].kinds
    for recompile in sample.recompiles:
        assert MARK_RECOMPILE in marks[recompile.call_site.path][recompile.call_site.line].kinds
    for kernel in (k for g in sample.graphs for k in g.kernels):
        for ref in kernel.source_lines:
            assert MARK_KERNEL in marks[ref.path][ref.line].kinds
    for i, finding in enumerate(sample.findings):
        assert i in marks[finding.path][finding.line].findings


async def test_n_and_p_step_through_marked_lines(sample_app):
    app, pilot = sample_app.app, sample_app.pilot
    await pilot.press("5")
    view = app.screen.query_one(SourceView)
    marked = sorted(app.index.marks[view.path])
    assert view.cursor_line == marked[0]
    for line in marked[1:]:
        await pilot.press("n")
        assert view.cursor_line == line
    await pilot.press("n")
    assert view.cursor_line == marked[-1]
    await pilot.press("p")
    assert view.cursor_line == marked[-2]


async def test_enter_on_a_marked_line_shows_its_finding(sample_app):
    app, pilot, sample = sample_app.app, sample_app.pilot, sample_app.analysis
    index, finding = next((i, f) for i, f in enumerate(sample.findings) if f.family == "BRK"
                          and f.path in sample.sources)
    await pilot.press("5")
    app.screen.open_file(finding.path, finding.line)
    await pilot.press("enter")
    await pilot.pause()
    assert app.screen.id == "findings"
    assert app.screen.selected_index == app.index.marks[finding.path][finding.line].findings[0]


async def test_file_without_source_says_so_and_lists_its_findings(sample_app):
    app, pilot, sample = sample_app.app, sample_app.pilot, sample_app.analysis
    finding = next(f for f in sample.findings if f.path not in sample.sources)
    await pilot.press("5")
    app.screen.open_file(finding.path, finding.line)
    await pilot.pause()
    view = app.screen.query_one(SourceView)
    assert not view.available
    assert "source not available" in screen_text(app)
    summary = app.screen.line_summary(finding.path, finding.line)
    assert any(finding.code in str(getattr(part, "plain", "")) for part in summary.renderables)


async def test_cursor_moves_with_keys_and_reports_the_line(sample_app):
    app, pilot = sample_app.app, sample_app.pilot
    await pilot.press("5")
    view = app.screen.query_one(SourceView)
    start = view.cursor_line
    await pilot.press("down", "down", "up")
    assert app.screen.cursor == (view.path, start + 1)
    await pilot.press("home")
    assert view.cursor_line == 1
    await pilot.press("end")
    assert view.cursor_line == view.line_count


def test_lazy_highlight_matches_lexing_the_whole_file(sample):
    from rich.syntax import Syntax
    from tdiag.tui.widgets.lazy_highlight import LazyHighlight
    from tdiag.tui.widgets.snippet import SYNTAX_THEME

    for source in (sample.sources["train.py"], 'x = """one\ntwo\n"""\ny = 1  # end\n'):
        whole = Syntax(source, "python", theme=SYNTAX_THEME).highlight(source).split("\n")
        lazy = LazyHighlight(source)
        assert lazy.line_count == len(source.splitlines())
        for number in range(1, lazy.line_count + 1):  # in order, so each call lexes only a little further
            assert (lazy.line(number).plain, lazy.line(number).spans) == (whole[number - 1].plain,
                                                                          whole[number - 1].spans)
