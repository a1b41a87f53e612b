"""Findings beyond the server-rendered top ones, as rows of the page's embedded data.

The page script builds such a finding (same markup as the template's) when it is opened, searched or linked to.
Each row is a list in ``FIELDS`` order; strings are indexes into the page's ``StringTable``. Source excerpts are not
stored: the script cuts them from the annotated source view, which holds every recorded file already.
"""

from __future__ import annotations

from typing import Any

from .strings import StringTable
from tdiag.analyzer.fix_status import label as fix_label

FIELDS = (
    "rank", "anchor", "code", "name", "family", "severity", "path", "line", "column", "end_column", "function",
    "source", "message", "fix", "reason", "gb_id", "gb_url", "explanation", "hints", "same_as", "guard", "expected",
    "actual", "facts", "occurrences", "compile_ids", "graph_refs", "library_frame", "ranks", "stack", "suggestion",
    "cost",
)  # fmt: skip


def finding_rows(views: list[Any], strings: StringTable) -> dict[str, Any]:
    """``views`` are page.FindingView; the result is ``{"fields": [...], "rows": [[...], ...]}``."""
    return {"fields": list(FIELDS), "rows": [_row(v, strings) for v in views]}


def _row(v: Any, s: StringTable) -> list[Any]:
    f = v.f
    lib = f.library_frame
    sug = f.suggestion
    row = {
        "rank": v.rank,
        "anchor": v.anchor,
        "code": s(f.code),
        "name": s(f.name),
        "family": s(f.family),
        "severity": s(f.severity),
        "path": s(f.path),
        "line": f.line,
        "column": f.column,
        "end_column": f.end_column,
        "function": s(f.function),
        # slug of the file's annotated source view; the excerpt and the location link come from it
        "source": s(v.source_link.rsplit("-L", 1)[0]) if v.source_link else None,
        "message": f.message,
        "fix": s(f.fix),
        "fix_label": s(fix_label("Fix", f)),  # "Fix (unverified)", "Fix (verified by ...: ...)" (fix_status.py)
        "fix_status": s(f.fix_status),
        "reason": s(v.reason),
        "gb_id": s(f.gb_id),
        "gb_url": s(v.gb_url),  # already limited to http(s) by safe_url
        "explanation": s(v.explanation),
        "hints": s.many(v.hints),
        "same_as": [s(v.same_as[0]), v.same_as[1]] if v.same_as else None,
        "guard": s(v.guard),
        "expected": s(v.expected),
        "actual": s(v.actual),
        "facts": [[s(label), s(value)] for label, value in v.facts],
        "occurrences": f.occurrences,
        "compile_ids": s.many([label for label, _ in v.graph_links]),
        "graph_refs": [dom for _, dom in v.graph_links],  # dom id of each compile's graph, or null
        "library_frame": [s(lib.path), lib.line, s(lib.function), s(v.library_label)] if lib else None,
        "ranks": [[s(r), n] for r, n in v.per_rank],
        "stack": [[s(fr.path), fr.line, s(fr.function), s(fr.code), int(fr.is_user)] for fr in v.user_stack],
        "suggestion": [
            s(sug.title),
            s(sug.why),
            # patches repeat their file headers and often their lines: stored line by line
            s.many(sug.patch.splitlines(keepends=True)) if sug.patch else None,
            s(sug.patch_note),
            s.many(sug.alternatives),
        ]
        if sug
        else None,
        # [label, basis, seconds, caveat] (reports/cost_format.cost_label), null without a cost
        "cost": [s(v.cost), s(v.cost_basis), v.f.cost.total_s, s(v.cost_caveat)] if v.cost else None,
    }
    return [row[name] for name in FIELDS]
