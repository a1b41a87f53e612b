"""A GitHub job summary: counts and the top findings as GitHub-flavoured Markdown, for ``$GITHUB_STEP_SUMMARY``.

GitHub caps each step's summary file at 1 MiB and drops the whole summary when it is larger, so whatever is
appended is cut to fit what is left of that budget.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from tdiag.analyzer.ranking import rank_key
from tdiag.analyzer.fix_status import label as fix_label

if TYPE_CHECKING:
    from tdiag.analyzer.model import Analysis

STEP_SUMMARY_LIMIT = 1024 * 1024
TOP_FINDINGS = 20
TRUNCATION_NOTE = "\n_(tdiag: summary cut to fit GitHub's 1 MiB step-summary limit)_\n"


def markdown_summary(analysis: Analysis, title: str = "tdiag lint", top: int = TOP_FINDINGS) -> str:
    s = analysis.summary
    findings = sorted(analysis.findings, key=rank_key)  # the order of every output
    out = [
        f"### {title}",
        "",
        "| findings | graphs | graph breaks | recompilations | eager fallbacks | compile time |",
        "| ---: | ---: | ---: | ---: | ---: | ---: |",
        f"| {len(findings)} | {s.graphs} | {s.graph_breaks} | {s.recompiles} | {s.eager_fallbacks} | {s.compile_time_s:.1f}s |",
        "",
    ]
    if findings:
        out += ["| severity | code | location | message | fix |", "| --- | --- | --- | --- | --- |"]
        for f in findings[:top]:
            out.append(f"| {f.severity} | `{f.code}` | `{f.path}:{f.line}` | {_cell(f.message)} | {_cell(f.fix + fix_label('', f))} |")
        if len(findings) > top:
            out.append(f"\n…and {len(findings) - top} more: run `tdiag lint` locally for the full list.")
    else:
        out.append("No findings.")
    return "\n".join(out) + "\n"


def fit_to_budget(text: str, already_used: int, limit: int = STEP_SUMMARY_LIMIT) -> str:
    """Cut ``text`` at a line boundary so the file stays within ``limit`` bytes; '' when nothing fits."""
    room = limit - already_used
    data = text.encode("utf-8")
    if len(data) <= room:
        return text
    room -= len(TRUNCATION_NOTE.encode("utf-8"))
    if room <= 0:
        return ""
    cut = data[:room].decode("utf-8", "ignore")
    return cut[: cut.rfind("\n") + 1] + TRUNCATION_NOTE


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")
