"""Facts every format derives the same way from a Finding: order, span, the one-line text, the rule link."""

from __future__ import annotations

import io
import tokenize
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tdiag.analyzer.model import Analysis, Finding

# SARIF/GitHub vocabulary for tdiag's severities.
SARIF_LEVELS = {"error": "error", "warning": "warning", "info": "note"}
GITHUB_LEVELS = {"error": "error", "warning": "warning", "info": "notice"}


def ordered(findings: list[Finding]) -> list[Finding]:
    """What stopped the program first (CRS), then file order, as ruff prints: the analysis ranks by impact, but a
    lint log reads top to bottom."""
    from tdiag.analyzer.stopped import stopped_first

    return sorted(findings, key=lambda f: (stopped_first(f), f.path, f.line, f.column or 0, f.code, f.message))


def source_line(analysis: Analysis, finding: Finding) -> str | None:
    text = analysis.sources.get(finding.path)
    if text is None:
        return None
    lines = text.splitlines()
    return lines[finding.line - 1] if 0 < finding.line <= len(lines) else None


def span(analysis: Analysis, finding: Finding) -> tuple[int, int]:
    """1-based (start, end-exclusive) columns. Without a recorded column the whole statement is meant,
    so take the source line's code from its first non-blank character (SARIF and GitHub want both ends)."""
    line = source_line(analysis, finding)
    if finding.column is not None:
        start = finding.column
    elif line is not None and line.strip():
        start = len(line) - len(line.lstrip()) + 1
    else:
        start = 1
    if finding.end_column is not None and finding.end_column > start:
        end = finding.end_column
    elif line is not None and len(_code_part(line)) + 1 > start:
        end = len(_code_part(line)) + 1
    else:
        end = start + 1
    return start, end


def _code_part(line: str) -> str:
    """The line without its trailing comment: a caret under ``# explanation`` would point at the wrong thing."""
    try:
        for token in tokenize.generate_tokens(io.StringIO(line.lstrip()).readline):
            if token.type == tokenize.COMMENT:
                indent = len(line) - len(line.lstrip())
                return line[: indent + token.start[1]].rstrip()
    except (tokenize.TokenError, IndentationError, SyntaxError):
        pass  # a line that does not tokenize alone (an open bracket, a string continuation): keep it whole
    return line.rstrip()


def display_column(finding: Finding) -> int:
    return finding.column or 1


def diagnostic_line(finding: Finding) -> str:
    """``path:line:col: CODE message``, the line shared by concise, full and github (ruff's convention)."""
    return f"{finding.path}:{finding.line}:{display_column(finding)}: {finding.code} {finding.message}"


def plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"
