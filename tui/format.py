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


def expected_actual(expected: object, actual: object) -> Text | None:
    """``expected 16  actual 24``, leaving out a side torch did not say (never "actual None"); None for neither."""
    shown = [(label, str(value), style) for label, value, style in (("expected ", expected, "green"),
                                                                    ("actual ", actual, "red"))
             if value is not None and str(value) not in ("", "None")]
    if not shown:
        return None
    text = Text()
    for i, (label, value, style) in enumerate(shown):
        text.append(("  " if i else "") + label, style="dim")
        text.append(value, style=style)
    return text
