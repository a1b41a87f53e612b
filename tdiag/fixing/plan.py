"""Which patches to apply: selected by rule code, identical ones merged, overlapping ones held back, merged per file.

Every patch in a record is a unified diff against the same recorded snapshot, so patches that touch different lines
of a file combine exactly: each hunk becomes "replace recorded lines [start, end) with these", and the edits of one
file are applied together, bottom-up, to the snapshot. Two edits that touch the same lines (or insert at the same
place) overlap; the one of the higher-ranked finding wins and the other is reported as held back. Step-time patches
(a RUN finding's: CUDA graphs, the optimizer) give way to the others whatever their rank: ``tdiag fix --verify``
judges them a round later, on the program its structural patches settle, so a step-time patch that claims a line
would hold back a structural patch no round ever tries (GPT-2's `fused=True` beside `model.loss_type`'s line).
"""

from __future__ import annotations

import re
from dataclasses import field

from tdiag.analyzer.model import Analysis, Finding
from tdiag.lean_dataclass import lean_dataclass

_HUNK_HEADER = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")


@lean_dataclass(frozen=True)
class Edit:
    """Replace recorded lines [start, end) (0-based) with ``new``; start == end inserts."""

    start: int
    end: int
    new: tuple[str, ...]

    def overlaps(self, other: Edit) -> bool:
        if self.start == other.start:
            return True
        return max(self.start, other.start) < min(self.end, other.end)


@lean_dataclass
class PlannedPatch:
    """One distinct patch, with every finding it answers."""

    id: str  # "BRK001@train.py:21": stable for --each labels and JSON
    path: str  # display path, relative to the project root
    patch: str
    title: str
    codes: list[str]
    findings: list[Finding] = field(default_factory=list)
    edits: list[Edit] = field(default_factory=list)
    held_back: str | None = None  # why it is not applied with the others (overlap)
    # the same finding's other patches (Suggestion.candidates), tried in order when this one does not pay
    alternatives: list[PlannedPatch] = field(default_factory=list)
    adds_graphs: bool = False  # Suggestion.adds_graphs: more graphs and breaks by design, judged by step time
    step_time: bool = False  # Suggestion.step_time: a lever that changes no count (a precision setting)

    @property
    def applied(self) -> bool:
        return self.held_back is None


def matches(code: str, patterns: list[str]) -> bool:
    """ruff's selector semantics: a pattern selects every code it prefixes (``BRK`` selects ``BRK001``)."""
    return any(code.upper().startswith(p.strip().upper()) for p in patterns if p.strip())


def plan_patches(analysis: Analysis, select: list[str] | None = None, ignore: list[str] | None = None) -> list[PlannedPatch]:
    """The record's distinct patches, ranked as its findings are; overlapping ones marked ``held_back``."""
    planned: dict[str, PlannedPatch] = {}
    for finding in analysis.findings:
        suggestion = finding.suggestion
        if suggestion is None or not suggestion.patch or finding.by_design:
            continue  # torch's expected behaviour (a bounded recompile, a deliberate break): nothing to patch
        if select and not matches(finding.code, select):
            continue
        if ignore and matches(finding.code, ignore):
            continue
        existing = planned.get(suggestion.patch)
        if existing is not None:
            existing.findings.append(finding)
            if finding.code not in existing.codes:
                existing.codes.append(finding.code)
            # one patch answering two findings (the read moved after the call answers the `.item()` and the print):
            # each finding's own next candidates stay, to be tried when the shared one does not pay
            known = {a.patch for a in existing.alternatives}
            existing.alternatives.extend(alt for alt in _candidates(finding) if alt.patch not in known)
            continue
        planned[suggestion.patch] = PlannedPatch(
            id=f"{finding.code}@{finding.path}:{finding.line}",
            path=finding.path,
            patch=suggestion.patch,
            title=suggestion.title,
            codes=[finding.code],
            findings=[finding],
            edits=edits_of(suggestion.patch),
            adds_graphs=suggestion.adds_graphs,
            step_time=suggestion.step_time,
            alternatives=_candidates(finding),
        )
    patches = list(planned.values())
    taken: dict[str, list[tuple[PlannedPatch, Edit]]] = {}
    for p in [p for p in patches if not is_step_time(p)] + [p for p in patches if is_step_time(p)]:
        clash = next((q for q, e in taken.get(p.path, []) if any(e.overlaps(mine) for mine in p.edits)), None)
        if clash is not None:
            p.held_back = f"overlaps {clash.id} ({clash.title}); run `tdiag run` again after applying it"
            continue
        taken.setdefault(p.path, []).extend((p, e) for e in p.edits)
    return patches


def is_step_time(patch: PlannedPatch) -> bool:
    """A patch judged by step time alone: every finding it answers is a RUN finding's (CUDA graphs, the optimizer),
    or its suggestion says it changes no count (a precision setting a torch warning names)."""
    return patch.step_time or all(code.startswith("RUN") for code in patch.codes)


def _candidates(finding: Finding) -> list[PlannedPatch]:
    """The finding's other patches (Suggestion.candidates) as planned patches, in the order they are tried."""
    return [
        PlannedPatch(id=f"{finding.code}@{finding.path}:{finding.line}#{n}", path=finding.path, patch=alt.patch,
                     title=alt.title, codes=[finding.code], findings=[finding], edits=edits_of(alt.patch),
                     adds_graphs=alt.adds_graphs, step_time=alt.step_time)
        for n, alt in enumerate(finding.suggestion.candidates, start=2) if alt.patch
    ]


def edits_of(patch: str) -> list[Edit]:
    """The line replacements a unified diff makes, context dropped (positions in the recorded file)."""
    edits: list[Edit] = []
    old_at = 0
    run_start: int | None = None
    run_new: list[str] = []

    def close_run() -> None:
        nonlocal run_start, run_new
        if run_start is not None:
            edits.append(Edit(run_start, old_at, tuple(run_new)))
        run_start, run_new = None, []

    in_hunk = False
    for raw in patch.splitlines():
        header = _HUNK_HEADER.match(raw)
        if header:
            close_run()
            old_start, old_count = int(header.group(1)), header.group(2)
            # "@@ -0,0 ..." inserts before line 1; otherwise the hunk starts at line old_start.
            old_at = old_start if old_count == "0" else old_start - 1
            in_hunk = True
            continue
        if not in_hunk:  # the ---/+++ file headers
            continue
        tag, body = raw[:1], raw[1:]
        if tag == "-":
            if run_start is None:
                run_start = old_at
            old_at += 1
        elif tag == "+":
            if run_start is None:
                run_start = old_at
            run_new.append(body)
        elif tag == "\\":  # "\ No newline at end of file"
            continue
        else:  # context (or an empty context line whose space was stripped)
            close_run()
            old_at += 1
    close_run()
    return edits


def merged_text(recorded: str, patches: list[PlannedPatch]) -> str:
    """``recorded`` with the edits of every given patch (all of one file, none overlapping) applied."""
    lines = recorded.splitlines()
    edits = sorted((e for p in patches for e in p.edits), key=lambda e: (e.start, e.end), reverse=True)
    for e in edits:
        lines[e.start : e.end] = list(e.new)
    return "\n".join(lines) + ("\n" if lines and (recorded.endswith("\n") or not recorded) else "")


def by_file(patches: list[PlannedPatch]) -> dict[str, list[PlannedPatch]]:
    grouped: dict[str, list[PlannedPatch]] = {}
    for p in patches:
        grouped.setdefault(p.path, []).append(p)
    return grouped
