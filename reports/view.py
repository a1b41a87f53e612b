"""The view-model of a finding: what every renderer shows for it (TUI detail pane, HTML page), as plain data.

A renderer lays these fields out in its own medium and adds only what is specific to it (an HTML permalink, a
terminal style); it never reads ``Finding.evidence`` itself, so a finding says the same thing everywhere. No rich,
textual or plotly here: both the TUI and the HTML import this module.
"""

from __future__ import annotations

from dataclasses import field
from typing import Any

from tdiag.analyzer.evidence import BreakEvidence, CrashEvidence, Evidence, RecompileEvidence
from tdiag.analyzer.guard_words import user_names, user_words
from tdiag.analyzer.model import Finding, Frame, GraphKey, Suggestion
from tdiag.analyzer.rules import FAMILIES
from tdiag.reports.cost_format import cost_label

from tdiag.lean_dataclass import lean_dataclass

SOURCE_NOT_AVAILABLE = "source not available"


@lean_dataclass
class StackLine:
    path: str
    line: int
    function: str
    code: str  # the recorded line, "" when neither the frame nor the source snapshot has it
    is_user: bool


@lean_dataclass
class FindingView:
    finding: Finding
    family_label: str  # "BRK (graph breaks)"
    site: str  # "path:line[:column]"
    library_site: str  # "path:line (function)" of the library or generated code the finding stands for, or ""
    library_label: str  # "Broke inside" for a graph break, "Library location" for the other families
    reason: str  # torch's words (graph breaks)
    explanation: str
    hints: list[str]
    guard: str  # the failing guard (recompiles)
    expected: str
    actual: str
    facts: list[tuple[str, str]]  # every other piece of evidence, as label/value
    stack: list[StackLine]  # user stack, innermost last; empty when it would only repeat the site
    suggestion: Suggestion | None
    graphs: list[str]  # compile ids, with the rank when the finding spans several
    graph_keys: list[GraphKey | None]  # the graph each of ``graphs`` names, where the rule recorded it
    ranks: list[tuple[str, int]] = field(default_factory=list)  # per-rank occurrences (multi-rank runs)
    cost: str = ""  # measured cost (reports/cost_format.cost_label), "" when the finding has none
    cost_basis: str = ""  # measured, compile, or "" (no cost)
    cost_caveat: str = ""  # what the cost does not say about the fix's saving (analyzer/cost.py CAVEATS), or ""


def family_label(family: str) -> str:
    # the rule registry's family names; an unknown prefix is shown as itself, so no renderer needs a change
    return f"{family} ({FAMILIES[family]})" if family in FAMILIES else family


def site_label(path: str, line: int | None, column: int | None = None) -> str:
    if line is None:
        return path
    return f"{path}:{line}:{column}" if column else f"{path}:{line}"


def finding_view(finding: Finding, sources: dict[str, str]) -> FindingView:
    ev: Evidence | None = finding.evidence
    brk = ev if isinstance(ev, BreakEvidence) else BreakEvidence()
    rcp = ev if isinstance(ev, RecompileEvidence) else RecompileEvidence()
    lib = finding.library_frame
    return FindingView(
        finding=finding,
        family_label=family_label(finding.family),
        site=site_label(finding.path, finding.line, finding.column),
        library_site=f"{lib.path}:{lib.line} ({lib.function})" if lib else "",
        library_label="Broke inside" if finding.family == "BRK" else "Library location",
        # torch's own words, quoted as torch's: still without Dynamo's internal names (guard_words.user_names)
        reason=user_names(_text(brk.reason)),
        explanation=user_names(_text(brk.explanation) or (ev.torch_message if isinstance(ev, CrashEvidence) else "")),
        hints=[user_names(_text(h)) for h in brk.hints if h],
        guard=user_words(_text(rcp.guard)),  # torch's text, Dynamo's own names put as the user wrote them
        expected=_text(rcp.expected),
        actual=_text(rcp.actual),
        facts=[(label, user_words(value)) for label, value in ev.facts()] if ev is not None else [],
        stack=_stack(finding, brk.user_stack, sources),
        suggestion=finding.suggestion,
        graphs=[label for label, _ in _graphs(finding)],
        graph_keys=[key for _, key in _graphs(finding)],
        ranks=_ranks(finding),
        cost=_cost(finding),
        cost_basis=finding.cost.basis if finding.cost is not None and finding.cost.basis != "none" else "",
        cost_caveat=(finding.cost.caveat or "") if finding.cost is not None and finding.cost.basis != "none" else "",
    )


def _cost(finding: Finding) -> str:
    label = cost_label(finding.cost)
    return "" if label == "-" else label


def _text(value: object) -> str:
    return "" if value is None else str(value)


def _stack(finding: Finding, frames: list[Frame], sources: dict[str, str]) -> list[StackLine]:
    stack = [_line(frame, sources) for frame in frames]
    # a one-frame stack at the finding's own line says nothing the header does not
    if len(stack) == 1 and (stack[0].path, stack[0].line) == (finding.path, finding.line):
        return []
    return stack


def _line(frame: Frame, sources: dict[str, str]) -> StackLine:
    code = frame.code
    if not code and frame.path in sources and frame.line > 0:
        lines = sources[frame.path].splitlines()
        code = lines[frame.line - 1].strip() if frame.line <= len(lines) else None
    return StackLine(frame.path, frame.line, frame.function, code or "", frame.is_user)


def _graphs(finding: Finding) -> list[tuple[str, GraphKey | None]]:
    if not finding.graph_keys:
        return [(cid, None) for cid in finding.compile_ids]
    several = len({k.rank for k in finding.graph_keys}) > 1
    return [(k.label if several else k.compile_id, k) for k in finding.graph_keys]


def _ranks(finding: Finding) -> list[tuple[str, int]]:
    return [(str(rank), n) for rank, n in sorted(finding.ranks.items())]


# -- where the kernel time goes, per module (issue 23) ------------------------------------------------------------
@lean_dataclass
class ModuleTimeRow:
    """Measured kernel device time of one module (or one user line), forward and backward apart."""

    role: str  # forward, backward
    module: str  # "encoder.layers.0.mlp.2 (Linear)"; for a per-line row, the modules built there
    built_at: str  # "train.py:12" (the user's line that built the module), "" when not resolved
    built_code: str  # that line's text
    kernels: int
    seconds: float
    share: float  # of all measured kernel time in the table (0..1)


def module_time_rows(analysis: Any, by: str = "module") -> list[ModuleTimeRow]:
    """Rows largest first; ``by="line"``: one row per (role, user line that built the modules)."""
    from tdiag.analyzer.kernel_time import module_times

    raw = module_times(analysis)
    total = sum(r["device_s"] for r in raw) or 1.0
    if by == "line":
        grouped: dict[tuple[str, str], dict[str, Any]] = {}
        for r in raw:
            ref = r["built_at"]
            key = (r["role"], site_label(ref.path, ref.line) if ref else "")
            g = grouped.setdefault(key, {"role": r["role"], "modules": [], "built_at": ref, "device_s": 0.0, "kernels": 0})
            g["modules"].append(_module_name(r["path"], r["cls"]))
            g["device_s"] += r["device_s"]
            g["kernels"] += r["kernels"]
        raw = [{**g, "path": None, "cls": None} for g in sorted(grouped.values(), key=lambda g: -g["device_s"])]
    rows = []
    for r in raw:
        ref = r["built_at"]
        module = ", ".join(r["modules"]) if r.get("modules") else _module_name(r["path"], r["cls"])
        rows.append(ModuleTimeRow(r["role"], module, site_label(ref.path, ref.line) if ref else "",
                                  (ref.code or "") if ref else "", r["kernels"], r["device_s"], r["device_s"] / total))
    return rows


def top_modules_line(analysis: Any, limit: int = 3) -> str:
    """``top modules (kernel time): 3 (Linear) bwd 41%, ...`` when the measured kernel time is most of the window and
    the top rows explain most of it; "" otherwise."""
    runtime = getattr(analysis.summary, "runtime", None)
    rows = module_time_rows(analysis)
    if not rows or runtime is None or not runtime.window_s:
        return ""
    top = rows[:limit]
    if sum(r.share for r in top) < 0.5 or sum(r.seconds for r in rows) < 0.5 * runtime.window_s:
        return ""
    parts = [f"{r.module} {'bwd' if r.role == 'backward' else 'fwd'} {r.share:.0%}"
             + (f" ({r.built_at})" if r.built_at else "") for r in top]
    return "top modules (kernel time): " + ", ".join(parts)


def _module_name(path: str | None, cls: str | None) -> str:
    return f"{path} ({cls})" if path else (cls or "")
