"""Small text helpers shared by every screen: severity styles, family names, site labels."""

from __future__ import annotations

from rich.text import Text
from tdiag.reports.site_text import shorten_site
from tdiag.reports.view import SOURCE_NOT_AVAILABLE, family_label, site_label  # noqa: F401  (shared with the HTML)

SEVERITY_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}


def severity_text(severity: str) -> Text:
    return Text.assemble((severity, SEVERITY_STYLE.get(severity, "")))  # a span, so it survives copy/truncate


def site_cell(path: str, line: int | None, column: int | None, width: int) -> Text:
    """A site for a fixed-width column: directories go from the left, the file name and line stay."""
    return Text(shorten_site(site_label(path, line, column), width))


def seconds(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value * 1000:.0f} ms" if value < 1 else f"{value:.1f} s"
