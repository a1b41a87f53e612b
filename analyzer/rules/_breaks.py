"""Shared by the BRK rules: which rule a graph break belongs to, and how breaks at one site become a finding."""

from __future__ import annotations

import re
from collections import defaultdict

from tdiag.analyzer.model import Finding, GraphBreak

LOGGING_CALL = re.compile(r"\b(print|logging\.\w+|logger\.\w+|log\.\w+|warnings\.warn)\s*\(")
TO_PYTHON = re.compile(r"\.(tolist|numpy)\s*\(")


def site_code(b: GraphBreak) -> str:
    user = next((f for f in reversed(b.user_stack) if f.is_user and f.line == b.site.line), None)
    return (user.code if user and user.code else "") or ""


def classify(b: GraphBreak) -> str:
    """The BRK rule code for one break. Frame-level give-ups are BRK006 whatever their cause."""
    if b.frame_skipped:
        return "BRK006"
    reason = f"{b.reason} {b.explanation} {b.context}".lower()
    code = site_code(b)
    if LOGGING_CALL.search(code) or "builtin operator `print`" in reason or "logging" in reason:
        return "BRK004"
    if b.gb_id == "GB0124" or "tensor.item()" in reason:
        return "BRK002"
    if TO_PYTHON.search(code) or "tolist" in reason or "numpy()" in reason:
        return "BRK003"
    if b.gb_id == "GB0170" or "data-dependent branching" in reason:
        return "BRK001"
    if (
        b.library_frame is not None
        or "skipped" in reason
        or "builtin" in reason
        or "c function" in reason
        or "unsupported context manager" in reason
        or "not supported" in reason
    ):
        return "BRK005"
    return "BRK099"


def break_findings(ctx, rule, message, fix) -> list[Finding]:
    """One finding per site for the breaks of this rule; ``message(b)``/``fix(b)`` word it for the first break."""
    groups: dict[tuple[str, int], list[GraphBreak]] = defaultdict(list)
    for b in ctx.analysis.breaks:
        if classify(b) == rule.code:
            groups[b.site.key].append(b)
    findings = []
    for (path, line), breaks in groups.items():
        first = next((b for b in breaks if b.site.column), breaks[0])  # prefer the break that saw the exact column
        compile_ids = sorted({b.compile_id for b in breaks}, key=_cid_key)
        findings.append(
            Finding(
                code=rule.code,
                name=rule.name,
                severity=rule.severity,
                message=message(first),
                fix=fix(first),
                path=path,
                line=line,
                column=first.site.column,
                end_column=first.site.end_column,
                function=first.site.function,
                gb_id=first.gb_id,
                gb_url=first.gb_url,
                occurrences=len(breaks),
                compile_ids=compile_ids,
                impact=impact_of_breaks(breaks),
                library_frame=first.library_frame,
                evidence={
                    "reason": first.reason,
                    "explanation": first.explanation,
                    "hints": list(first.hints),
                    "context": first.context,
                    "user_stack": [vars(f).copy() for f in first.user_stack],
                    "offset": first.offset,
                    "opname": first.opname,
                    "code_name": first.code_name,
                    "source": site_code(first) or None,
                },
                ranks=_ranks(breaks),
            )
        )
    return findings


def impact_of_breaks(breaks: list[GraphBreak]) -> float:
    # Each break splits a graph in two and adds a Python round trip per call; a skipped frame loses all of it.
    return float(len(breaks)) * (10.0 if any(b.frame_skipped for b in breaks) else 1.0)


def _ranks(items) -> dict[str, int]:
    counts: dict[str, int] = defaultdict(int)
    for item in items:
        rank = getattr(item, "rank", None)
        if rank is not None:
            counts[str(rank)] += 1
    return dict(counts)


def _cid_key(cid: str) -> tuple[int, ...]:
    return tuple(int(p) for p in re.findall(r"\d+", cid))


def where(b: GraphBreak) -> str:
    if b.library_frame is not None:
        return f" (inside {b.library_frame.path}:{b.library_frame.line}, reached from this line)"
    return ""
