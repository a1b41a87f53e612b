"""The per-module kernel time table in the TUI (``m`` from Graphs), on the real MLP record with launch times written
by hand (the ``timed`` fixture). Its own module: the browser test's playwright loop must not be running."""

from __future__ import annotations

from kernels_testing import MLP, line_of


def test_tui_table_from_graphs_with_m(timed):
    import asyncio

    from tdiag.tui.app import make_app
    from tdiag.tui.screens.module_time import ModuleTimeScreen

    async def scenario():
        app = make_app(timed)
        async with app.run_test(size=(140, 40)) as pilot:
            await pilot.press("4", "m")
            screen = app.screen
            assert isinstance(screen, ModuleTimeScreen)
            first = screen.rows[0]
            assert (first.role, first.module) == ("backward", "3 (Linear)")
            await pilot.press("l")
            assert screen.by == "line" and screen.rows[0].built_at.endswith(f":{line_of(MLP, '# FC2 LINE')}")
            await pilot.press("s")  # next column after "ms": share, largest first
            assert screen.sort == "share"

    asyncio.run(scenario())
