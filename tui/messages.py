"""Navigation requests posted by screens and widgets; the app owns how to satisfy them."""

from __future__ import annotations

from tdiag.analyzer.model import GraphKey
from textual.message import Message


class ShowFinding(Message):
    """Open the Findings screen with this finding (an index into ``Analysis.findings``) selected."""

    def __init__(self, index: int) -> None:
        super().__init__()
        self.index = index


class ShowSource(Message):
    """Open the Source screen at a line."""

    def __init__(self, path: str, line: int) -> None:
        super().__init__()
        self.path = path
        self.line = line


class ShowGraph(Message):
    """Open the detail of one compiled graph (kernels, generated code); the key names the rank too."""

    def __init__(self, key: GraphKey) -> None:
        super().__init__()
        self.key = key


class OpenInEditor(Message):
    """Open a recorded line in ``$EDITOR``."""

    def __init__(self, path: str, line: int) -> None:
        super().__init__()
        self.path = path
        self.line = line
