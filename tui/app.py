"""The tdiag terminal UI: ``make_app`` builds it from an Analysis, ``run_app`` runs it in the terminal."""

from __future__ import annotations

import os
import shlex
import subprocess
from pathlib import Path

from tdiag.analyzer.model import Analysis
from tdiag.tui.idle_gc import IdleCollector
from tdiag.tui.index import AnalysisIndex
from tdiag.tui.messages import OpenInEditor, ShowFinding, ShowGraph, ShowSource
from tdiag.tui.screens.findings import FindingsScreen
from tdiag.tui.screens.graph_detail import GraphDetailScreen
from tdiag.tui.screens.graphs import GraphsScreen
from tdiag.tui.screens.help import HelpScreen
from tdiag.tui.screens.overview import OverviewScreen
from tdiag.tui.screens.recompiles import RecompilesScreen
from tdiag.tui.screens.source import SourceScreen
from tdiag.tui.widgets.snippet import warm_lexers
from tdiag.tui.widgets.source_view import SourceView
from textual import events
from textual.app import App
from textual.binding import Binding

INTERRUPTED = 130  # tdiag.interrupt.EXIT_INTERRUPTED: the return code of a UI left with Ctrl-C
SCREEN_CLASSES = (OverviewScreen, FindingsScreen, RecompilesScreen, GraphsScreen, SourceScreen)


class TdiagApp(App):
    CSS_PATH = "app.tcss"
    TITLE = "tdiag"
    ENABLE_COMMAND_PALETTE = False
    MODES = {cls.MODE: cls for cls in SCREEN_CLASSES}
    DEFAULT_MODE = "overview"
    # Side-by-side panes only where they fit; 80-column terminals stack them.
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (110, "-wide")]
    BINDINGS = [
        Binding("1", "go('overview')", "Overview", show=False),
        Binding("2", "go('findings')", "Findings", show=False),
        Binding("3", "go('recompiles')", "Recompiles", show=False),
        Binding("4", "go('graphs')", "Graphs", show=False),
        Binding("5", "go('source')", "Source", show=False),
        Binding("k", "ranks", "Ranks", show=False),
        Binding("slash", "search", "Search", show=False),
        Binding("escape", "back", "Back", show=False),
        Binding("question_mark", "help", "Help"),
        Binding("q", "quit", "Quit"),
        # Ctrl-C ends the UI as it ends any command line tool (Textual's own binding only says to press Ctrl-Q)
        Binding("ctrl+c", "interrupt", "Quit (exit 130)", show=False, priority=True),
    ]

    def __init__(self, analysis: Analysis, record_dir: Path | None = None) -> None:
        super().__init__()
        self.analysis = analysis
        self.record_dir = record_dir  # where `a` (apply a patch) keeps its backup; None: nothing is written
        self.index = AnalysisIndex(analysis)
        self.idle_gc = IdleCollector(self)
        self._history: list[str] = []  # modes visited, for Escape

    def on_mount(self) -> None:
        self._catch_sigint(True)
        self.idle_gc.start()
        self.call_after_refresh(warm_lexers)  # after the first screen is painted, before anyone opens a finding

    def on_unmount(self) -> None:
        self._catch_sigint(False)
        self.idle_gc.stop()

    def _catch_sigint(self, on: bool) -> None:
        """A SIGINT from outside (the terminal sends Ctrl-C as a key while the UI runs) ends it as Ctrl-C does."""
        import asyncio
        import signal

        try:
            loop = asyncio.get_running_loop()
            if on:
                loop.add_signal_handler(signal.SIGINT, self.action_interrupt)
            else:
                loop.remove_signal_handler(signal.SIGINT)
        except (RuntimeError, NotImplementedError, ValueError):  # not the main thread (a test's pilot), or Windows
            pass

    async def on_event(self, event: events.Event) -> None:
        if isinstance(event, (events.Key, events.MouseDown)):
            self.idle_gc.saw_input()
        await super().on_event(event)

    def action_interrupt(self) -> None:
        self.exit(return_code=INTERRUPTED)

    # -- navigation ------------------------------------------------------------------------------------

    async def action_go(self, mode: str) -> None:
        if mode != self.current_mode:
            self._history.append(self.current_mode)
            await self.switch_mode(mode)

    def action_ranks(self) -> None:
        """The per-rank heat map (multi-rank runs; a single process is told it needs several ranks)."""
        from tdiag.tui.screens.ranks import RanksScreen

        if not isinstance(self.screen, RanksScreen):
            self.push_screen(RanksScreen(self.analysis))

    async def action_back(self) -> None:
        if len(self.screen_stack) > 1:
            self.pop_screen()
        elif self._history:
            await self.switch_mode(self._history.pop())

    async def action_search(self) -> None:
        await self.action_go("findings")
        self.screen.action_search()  # type: ignore[attr-defined]

    def action_help(self) -> None:
        if isinstance(self.screen, HelpScreen):
            return
        sections = [("Everywhere", list(self.BINDINGS))]
        for cls in SCREEN_CLASSES + (GraphDetailScreen,):
            bindings = [b for b in cls.BINDINGS if isinstance(b, Binding)]
            if bindings:
                sections.append((cls.__name__.removesuffix("Screen"), bindings))
        sections.append(("Source view", list(SourceView.BINDINGS)))
        self.push_screen(HelpScreen(sections))

    async def on_show_finding(self, message: ShowFinding) -> None:
        await self.action_go("findings")
        self.screen.select_finding(message.index)  # type: ignore[attr-defined]

    async def on_show_source(self, message: ShowSource) -> None:
        while len(self.screen_stack) > 1:
            self.pop_screen()
        await self.action_go("source")
        self.screen.open_file(message.path, message.line)  # type: ignore[attr-defined]

    async def on_show_graph(self, message: ShowGraph) -> None:
        graph = self.analysis.graph(message.key)
        if graph is None:
            self.notify(f"graph {message.key.label} is not in this record", severity="warning")
            return
        if self.current_mode == "graphs":
            self.screen.select_graph(message.key)  # type: ignore[attr-defined]
        self.push_screen(GraphDetailScreen(self.analysis, graph))

    def on_open_in_editor(self, message: OpenInEditor) -> None:
        open_in_editor(self, message.path, message.line)


def open_in_editor(app: App, path: str, line: int) -> None:
    """Display paths are relative to where the program ran; the recorded snapshot may differ from the disk."""
    editor = os.environ.get("VISUAL") or os.environ.get("EDITOR")
    if not editor:
        app.notify("Set $EDITOR to open files.", severity="warning")
        return
    target = Path(path)
    if not target.is_file():
        app.notify(f"{path} is not on this machine (the record only holds a snapshot).", severity="warning")
        return
    command = [*shlex.split(editor), f"+{line}", str(target)]
    try:
        with app.suspend():
            subprocess.run(command, check=False)
    except Exception as exc:  # SuspendNotSupported under a test driver, editor missing, ...
        app.notify(f"could not run {editor}: {exc}", severity="error")


def make_app(analysis: Analysis, record_dir: Path | None = None) -> TdiagApp:
    return TdiagApp(analysis, record_dir)


def run_app(analysis: Analysis, record_dir: Path | None = None) -> None:
    """Raises KeyboardInterrupt when the UI was left with Ctrl-C, so the command ends as any interrupted one."""
    app = make_app(analysis, record_dir)
    app.run()
    if app.return_code == INTERRUPTED:
        raise KeyboardInterrupt
