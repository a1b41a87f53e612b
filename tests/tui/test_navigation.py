"""Every screen is reachable by keyboard, Enter goes deeper and Escape comes back."""

from __future__ import annotations

from tdiag.tui import make_app
from tdiag.tui.screens.findings import FindingsScreen
from tdiag.tui.screens.graph_detail import GraphDetailScreen


async def test_number_keys_switch_screens(sample_app):
    app, pilot = sample_app.app, sample_app.pilot
    assert app.screen.id == "overview"
    for key, screen_id in (("2", "findings"), ("3", "recompiles"), ("4", "graphs"), ("5", "source"),
                           ("1", "overview")):
        await pilot.press(key)
        assert app.screen.id == screen_id
        assert app.current_mode == screen_id


async def test_nav_bar_is_clickable(sample_app):
    app, pilot = sample_app.app, sample_app.pilot
    await pilot.click("#nav", offset=(15, 0))  # " 2 Findings " starts after " 1 Overview "
    assert app.screen.id == "findings"


async def test_enter_on_overview_opens_the_top_finding(sample_app):
    app, pilot, sample = sample_app.app, sample_app.pilot, sample_app.analysis
    await pilot.press("down", "enter")
    await pilot.pause()
    assert app.screen.id == "findings"
    assert app.screen.selected_finding is sample.findings[1]
    await pilot.press("escape")
    assert app.screen.id == "overview"


async def test_enter_on_a_finding_opens_its_source_line(sample_app):
    app, pilot, sample = sample_app.app, sample_app.pilot, sample_app.analysis
    await pilot.press("2", "enter")
    await pilot.pause()
    first = sample.findings[0]
    assert app.screen.id == "source"
    assert app.screen.cursor == (first.path, first.line)
    await pilot.press("escape")
    assert app.screen.id == "findings"


async def test_graph_detail_is_pushed_and_popped(sample_app):
    app, pilot, sample = sample_app.app, sample_app.pilot, sample_app.analysis
    await pilot.press("4", "down", "enter")
    await pilot.pause()
    assert isinstance(app.screen, GraphDetailScreen)
    assert app.screen.graph is sample.graphs[1]
    await pilot.press("down")
    assert app.screen.selected_kernel is sample.graphs[1].kernels[1]
    await pilot.press("escape")
    assert app.screen.id == "graphs"
    assert len(app.screen_stack) == 1


async def test_kernel_enter_opens_its_source_line(sample_app):
    app, pilot, sample = sample_app.app, sample_app.pilot, sample_app.analysis
    await pilot.press("4", "enter", "down", "enter")
    await pilot.pause()
    ref = sample.graphs[0].kernels[1].source_lines[0]
    assert app.screen.id == "source"
    assert app.screen.cursor == (ref.path, ref.line)


async def test_recompiles_enter_opens_the_latest_variant(sample_app):
    app, pilot, sample = sample_app.app, sample_app.pilot, sample_app.analysis
    await pilot.press("3")
    frame = app.screen.selected_frame
    assert frame.recompiles == max(f.recompiles for f in sample.frames)
    await pilot.press("enter")
    await pilot.pause()
    assert isinstance(app.screen, GraphDetailScreen)
    assert app.screen.graph.compile_id == frame.variants[-1]


async def test_help_lists_every_key_and_closes(sample_app):
    app, pilot = sample_app.app, sample_app.pilot
    await pilot.press("2", "question_mark")
    assert app.screen.id == "help"
    shown = {binding.key for _, bindings in app.screen.sections for binding in bindings}
    for binding in app.BINDINGS + FindingsScreen.BINDINGS:
        assert binding.key in shown
    await pilot.press("escape")
    assert app.screen.id == "findings"


async def test_slash_from_any_screen_opens_search(sample_app):
    app, pilot = sample_app.app, sample_app.pilot
    await pilot.press("4", "slash")
    assert app.screen.id == "findings"
    assert app.focused.id == "search"


async def test_q_quits(sample):
    app = make_app(sample)  # its own app: quitting would end the module's shared one
    async with app.run_test() as pilot:
        await pilot.press("q")
        await pilot.pause()
        assert app.return_code == 0
        assert not app.is_running
