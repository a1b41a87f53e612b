"""What the WRN rules share: torch's warnings grouped per user line and cause, each group one finding."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import Any

from tdiag.analyzer.evidence import TorchWarningEvidence
from tdiag.analyzer.rules._breaks import ranks_of


def warning_findings(rule: Any, ctx: Any, warnings: Iterable[Any], message: Callable[[Any], str],
                     fix: Callable[[Any], str]) -> list[Any]:
    """One finding per user line and cause (the catalogue entry, else torch's text), worded from its first warning."""
    groups: dict[tuple, list[Any]] = defaultdict(list)
    for w in warnings:
        cause = w.entry.id if w.entry is not None else (w.category, w.message)
        groups[(w.site.path, w.site.line, cause)].append(w)
    graphs = {g.key for g in ctx.analysis.graphs}
    findings = []
    for items in groups.values():
        first = items[0]
        keys = sorted({w.graph_key for w in items if w.graph_key in graphs})
        location = first.library_frame
        findings.append(rule.finding(
            message=message(first), fix=fix(first),
            path=first.site.path, line=first.site.line, function=first.site.function,
            library_frame=location, occurrences=len(items),
            compile_ids=sorted({k.compile_id for k in keys}), graph_keys=keys, ranks=ranks_of(items),
            evidence=TorchWarningEvidence(
                torch_message=first.message, category=first.category, module=first.module,
                torch_location=f"{location.path}:{location.line}" if location is not None else None,
                entry=first.entry.id if first.entry is not None else None),
        ))
    return findings


def has_break_at(ctx: Any, w: Any) -> bool:
    """A graph break finding's line is this warning's: torch warns only because that break is easy to miss."""
    return (w.site.path, w.site.line) in ctx.break_sites
