"""Bad input and small terminals: zero findings, a damaged record, missing sources, 80x24."""

from __future__ import annotations

from shared_app import screen_text
from tdiag.tui import make_app


async def test_zero_findings_shows_all_clear_not_an_empty_table(empty):
    app = make_app(empty)
    async with app.run_test() as pilot:
        assert app.screen.query("#all-clear")
        assert not app.screen.query("#top-findings")
        assert "No graph breaks, no recompilations" in screen_text(app)
        await pilot.press("2")
        assert app.screen.query("#no-findings")
        assert app.screen.selected_finding is None
        for key in ("f", "s", "o", "slash", "x", "escape", "e"):
            await pilot.press(key)
        await pilot.press("3", "4", "5", "1")
        assert app.screen.id == "overview"


async def test_damaged_record_lists_its_problems(broken):
    app = make_app(broken)
    async with app.run_test(size=(120, 40)) as pilot:
        problems = app.screen.query_one("#record-problems")
        assert problems.display
        shown_text = screen_text(app)
        for problem in broken.run.record_problems:
            assert problem.split(":")[0] in shown_text
        await pilot.press("2")  # every finding now lacks its source
        assert "source not available" in screen_text(app)
        await pilot.press("5", "n", "enter")
        await pilot.pause()
        # no source text, so no line to move to or open: the Source screen stays, saying why
        assert app.screen.id == "source"
        assert "source not available" in screen_text(app)


async def test_nothing_compiled_at_all():
    from tdiag.analyzer.model import Analysis

    app = make_app(Analysis())
    async with app.run_test() as pilot:
        for key in ("2", "3", "4", "5", "1", "question_mark", "escape"):
            await pilot.press(key)
        assert app.screen.id == "overview"


async def test_80x24_keeps_every_table_and_detail_usable(sample):
    app = make_app(sample)
    async with app.run_test(size=(80, 24)) as pilot:
        for screen_key in ("1", "2", "3", "4", "5"):
            await pilot.press(screen_key)
            await pilot.pause()
            for table in app.screen.query("DataTable, RowTable"):
                assert table.region.height >= 4, f"{table.id} squeezed to {table.region.height} rows"
            for pane_id in ("#finding-detail", "#chain-pane", "#graph-pane", "#source-view"):
                for pane in app.screen.query(pane_id):
                    assert pane.region.height >= 6, f"{pane_id} squeezed to {pane.region.height} rows"


async def test_editor_without_editor_set_notifies(sample, monkeypatch):
    monkeypatch.delenv("EDITOR", raising=False)
    monkeypatch.delenv("VISUAL", raising=False)
    app = make_app(sample)
    async with app.run_test() as pilot:
        await pilot.press("2", "e")
        await pilot.pause()
        assert any("EDITOR" in str(n.message) for n in app._notifications)
