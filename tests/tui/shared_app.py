"""One running app shared by the tests of a module: starting an app and building its screens costs more than most
tests spend pressing keys, so a module opens it once and each test starts from ``reset``.

The app runs inside one long-lived task (``run_test`` must stay entered for the app to keep its context); each test's
coroutine is handed to that task and awaited there.
"""

from __future__ import annotations

import asyncio
from collections.abc import Coroutine
from typing import Any

from tdiag.analyzer.model import Analysis
from tdiag.tui import make_app
from tdiag.tui.widgets.row_table import RowTable
from textual.widgets import Input


class SharedApp:
    def __init__(self, analysis: Analysis, size: tuple[int, int]) -> None:
        self.analysis = analysis
        self.app = make_app(analysis)
        self.pilot: Any = None
        self._loop = asyncio.new_event_loop()
        self._jobs: asyncio.Queue = asyncio.Queue()
        ready = self._loop.create_future()
        self._task = self._loop.create_task(self._serve(size, ready))
        self._loop.run_until_complete(ready)

    async def _serve(self, size: tuple[int, int], ready: asyncio.Future) -> None:
        async with self.app.run_test(size=size) as pilot:
            self.pilot = pilot
            ready.set_result(None)
            while (job := await self._jobs.get()) is not None:
                coroutine, done = job
                try:
                    done.set_result(await coroutine)
                except BaseException as exc:  # noqa: BLE001 - handed back to the test
                    done.set_exception(exc)

    def run(self, coroutine: Coroutine) -> Any:
        if self._task.done():  # the app died in an earlier test; say so instead of hanging
            self._task.result()
            raise RuntimeError("the shared app has exited")
        done = self._loop.create_future()
        self._jobs.put_nowait((coroutine, done))
        return self._loop.run_until_complete(done)

    def reset(self) -> None:
        self.run(self._reset())

    async def _reset(self) -> None:
        """Back to the first screen with every visited screen's filters, search and cursors as on opening."""
        app = self.app
        while len(app.screen_stack) > 1:
            app.pop_screen()
        # Mode screens are built on first visit and kept; _screen_stacks is the only place that lists them.
        for stack in app._screen_stacks.values():
            for screen in stack:
                if screen.id == "findings":
                    screen.query_state = screen._fresh_query()  # cost order for a measured record
                    for search in screen.query(Input):
                        search.value = ""
                        search.display = False
                    screen.refresh_rows()
                    screen.set_focus(screen.query_one(RowTable))
                if screen.id == "source" and app.index.marked_paths():
                    first = app.index.marked_paths()[0]
                    screen.open_file(first, screen._first_mark(first))
                for table in screen.query(RowTable):
                    table.cursor_row = 0
        if app.current_mode != "overview":
            await app.switch_mode("overview")
        app._history.clear()
        app.screen.query_one("#top-findings").focus()
        await self.pilot.pause()

    def close(self) -> None:
        if not self._task.done():
            self._jobs.put_nowait(None)
        try:
            self._loop.run_until_complete(self._task)
        finally:
            self._loop.close()


def screen_text(app) -> str:
    """The characters on screen, in order, from the app's SVG screenshot (styles dropped)."""
    import html
    import re

    svg = app.export_screenshot()
    pieces = re.findall(r"<text[^>]*>([^<]*)</text>", svg)
    return html.unescape("".join(pieces)).replace("\xa0", " ")
