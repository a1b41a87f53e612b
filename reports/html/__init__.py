"""Single-file HTML report: findings ranked by what the user must change, charts, annotated source, graphs.

Fed only by an Analysis. The page is self-contained (plotly.js, CSS, JS and data inlined; a CSP forbids remote
loads) so it can travel as a CI artifact or an e-mail attachment.
"""

from __future__ import annotations

from pathlib import Path

from tdiag.analyzer.model import Analysis

from .render import render


def render_html(analysis: Analysis) -> str:
    return render(analysis)


def write_html(analysis: Analysis, path: Path) -> None:
    Path(path).write_text(render(analysis), encoding="utf-8")


__all__ = ["render_html", "write_html"]
