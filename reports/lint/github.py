"""``--format github``: GitHub Actions workflow commands, one annotation per finding.

``::warning title=tdiag (BRK001),file=train.py,line=21,col=9,endLine=21,endColumn=27::train.py:21:9: BRK001 ...``
The escaping follows actions/toolkit (``packages/core/src/command.ts``): the message escapes ``%``, CR and LF;
property values also ``:`` and ``,``, which would otherwise end the value.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tdiag.reports.lint.diagnostics import GITHUB_LEVELS, diagnostic_line, ordered, span

if TYPE_CHECKING:
    from tdiag.analyzer.model import Analysis, Finding
    from tdiag.reports.lint.options import LintOptions

TOOL_TITLE = "tdiag"


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def annotation(analysis: Analysis, finding: Finding) -> str:
    properties = {"title": f"{TOOL_TITLE} ({finding.code})", "file": finding.path, "line": str(finding.line)}
    # Without a recorded column the annotation covers the whole line: GitHub then shows it on the line itself.
    if finding.column is not None:
        start, end = span(analysis, finding)
        properties.update(col=str(start), endLine=str(finding.line), endColumn=str(end))
    else:
        properties["endLine"] = str(finding.line)
    props = ",".join(f"{key}={escape_property(value)}" for key, value in properties.items())
    return f"::{GITHUB_LEVELS[finding.severity]} {props}::{escape_data(diagnostic_line(finding))}"


def render(analysis: Analysis, options: LintOptions) -> str:
    from tdiag.analyzer.capture_health import incomplete_lines

    incomplete = incomplete_lines(analysis.run)
    title = "capture incomplete" if analysis.run.capture_problems else "analysis incomplete"
    notice = f"::error title={TOOL_TITLE} {title}::{escape_data(chr(10).join(incomplete))}\n" if incomplete else ""
    if analysis.run.torch_notice:
        notice += f"::notice title={TOOL_TITLE} untested torch::{escape_data(analysis.run.torch_notice)}\n"
    return notice + "".join(annotation(analysis, f) + "\n" for f in ordered(analysis.findings))
