"""What every top-level screen shares: the navigation bar, the footer, and access to the Analysis."""

from __future__ import annotations

from typing import TYPE_CHECKING

from tdiag.analyzer.model import Analysis
from tdiag.tui.index import AnalysisIndex
from tdiag.tui.widgets.key_bar import KeyBar
from tdiag.tui.widgets.nav import NavBar
from textual.screen import Screen

if TYPE_CHECKING:
    from tdiag.tui.app import TdiagApp


class TdiagScreen(Screen):
    MODE = ""  # the app mode (and screen id) this screen is shown under

    def __init__(self) -> None:
        super().__init__(id=self.MODE)

    @property
    def tdiag(self) -> TdiagApp:
        return self.app  # type: ignore[return-value]

    @property
    def analysis(self) -> Analysis:
        return self.tdiag.analysis

    @property
    def index(self) -> AnalysisIndex:
        return self.tdiag.index

    def nav(self) -> NavBar:
        return NavBar(self.MODE)

    def footer(self) -> KeyBar:
        return KeyBar()
