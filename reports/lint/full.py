"""``--format full`` (default): the diagnostic line, the recorded source around it with a caret under the span,
then the fix, ruff's layout::

    train.py:36:17: BRK002 graph break: Tensor.item() converts a tensor to a Python scalar
       |
    35 |         h = self.gate(x)
    36 |         scale = h.abs().max().item()
       |                 ^^^^^^^^^^^^^^^^^^^^ BRK002
    37 |         return h * scale
       |
       = help: keep the value a tensor (or enable capture_scalar_outputs)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tdiag.analyzer.crash import headline as crash_headline
from tdiag.analyzer.eager_compare import line as eager_line
from tdiag.reports.lint.diagnostics import diagnostic_line, ordered, span
from tdiag.reports.lint.footer import footer
from tdiag.analyzer.fix_status import label as fix_label

if TYPE_CHECKING:
    from tdiag.analyzer.model import Analysis, Finding
    from tdiag.reports.lint.options import LintOptions


def render(analysis: Analysis, options: LintOptions) -> str:
    blocks = [_finding_block(analysis, f, options) for f in ordered(analysis.findings)]
    return "".join(blocks) + footer(analysis.findings, options, analysis.run, crash_headline(analysis),
                                   eager_line(analysis))


def _finding_block(analysis: Analysis, finding: Finding, options: LintOptions) -> str:
    out = [diagnostic_line(finding)]
    snippet = _snippet(analysis, finding, options.context_lines)
    gutter = " " * _gutter_width(finding, options.context_lines)
    out.extend(snippet)
    if finding.fix:
        out.append(f"{gutter} = {fix_label('help', finding)}: {finding.fix}")
    if finding.occurrences > 1:
        ids = ", ".join(finding.compile_ids)
        out.append(f"{gutter} = note: {finding.occurrences} occurrences" + (f" (compile ids {ids})" if ids else ""))
    if finding.gb_url:
        out.append(f"{gutter} = see: {finding.gb_url}")
    return "\n".join(out) + "\n\n"


def _gutter_width(finding: Finding, context: int) -> int:
    return len(str(finding.line + context))


def _snippet(analysis: Analysis, finding: Finding, context: int) -> list[str]:
    """Source lines from the record's snapshot; none when the file was not snapshotted (e.g. a library)."""
    text = analysis.sources.get(finding.path)
    if text is None:
        return []
    lines = text.splitlines()
    if not 0 < finding.line <= len(lines):
        return []
    width = _gutter_width(finding, context)
    blank = " " * width + " |"
    first, last = max(1, finding.line - context), min(len(lines), finding.line + context)
    out = [blank]
    for number in range(first, last + 1):
        out.append(f"{number:>{width}} | {lines[number - 1]}".rstrip())
        if number == finding.line:
            start, end = span(analysis, finding)
            out.append(f"{blank} {' ' * (start - 1)}{'^' * (end - start)} {finding.code}")
    out.append(blank)
    return out
