"""Small text helpers shared by every screen: severity styles, family names, site labels."""

from __future__ import annotations

from rich.text import Text
from tdiag.analyzer.model import Finding

SEVERITY_STYLE = {"error": "bold red", "warning": "yellow", "info": "cyan"}

# Rule families by code prefix; an unknown prefix is shown as itself, so new families need no TUI change.
FAMILY_NAMES = {
    "BRK": "graph breaks",
    "RCP": "recompiles",
    "REC": "recompiles",
    "GRD": "guards",
    "DYN": "dynamic shapes",
    "LOW": "lowering and fusion",
    "FUS": "fusion",
    "KRN": "kernels",
    "CMP": "compile cost",
    "DIV": "rank divergence",
}

SOURCE_NOT_AVAILABLE = "source not available"


def family_label(family: str) -> str:
    return f"{family} ({FAMILY_NAMES[family]})" if family in FAMILY_NAMES else family


def severity_text(severity: str) -> Text:
    return Text.assemble((severity, SEVERITY_STYLE.get(severity, "")))  # a span, so it survives copy/truncate


def site_label(path: str, line: int | None, column: int | None = None) -> str:
    if line is None:
        return path
    return f"{path}:{line}:{column}" if column else f"{path}:{line}"


def finding_site(finding: Finding) -> str:
    return site_label(finding.path, finding.line, finding.column)


def seconds(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value * 1000:.0f} ms" if value < 1 else f"{value:.1f} s"
