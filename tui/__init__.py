"""The interactive terminal UI, fed only by an Analysis."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

    from tdiag.analyzer.model import Analysis
    from tdiag.tui.app import TdiagApp


def make_app(analysis: Analysis, record_dir: Path | None = None) -> TdiagApp:
    from tdiag.tui.app import make_app as _make_app

    return _make_app(analysis, record_dir)


def run_app(analysis: Analysis, record_dir: Path | None = None) -> None:
    """``record_dir``: the record the analysis came from, where the `a` key keeps its backups (None: read-only)."""
    from tdiag.tui.app import run_app as _run_app

    _run_app(analysis, record_dir)


__all__ = ["make_app", "run_app"]
