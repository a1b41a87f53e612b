"""The interactive terminal UI, fed only by an Analysis."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tdiag.analyzer.model import Analysis
    from tdiag.tui.app import TdiagApp


def make_app(analysis: Analysis) -> TdiagApp:
    from tdiag.tui.app import make_app as _make_app

    return _make_app(analysis)


def run_app(analysis: Analysis) -> None:
    from tdiag.tui.app import run_app as _run_app

    _run_app(analysis)


__all__ = ["make_app", "run_app"]
