"""Patches that rode along: kept in a set that paid, while the finding each answers is still in the patched run.

A round keeps a set that pays together whole. One patch of it may have changed nothing torch reports: its break
still happens at the same statement (torch's ``capture_scalar_outputs`` hint for a numpy draw that still breaks,
kept because the backward moved out of the step beside it paid). A break that moved to another line of
the same function (a break where none was before) stayed too. An expert would not apply a change
that fixed nothing, so such a patch is found here (its every finding, the same rule at the same statement, in the patched
run's record; a break stays while any break rule reports that statement) and the round verifies the set without it
once (rounds.py): kept without it when that pays too.

Only structural patches are judged so: a step-time patch (CUDA graphs, the optimizer) leaves its RUN finding in
place by nature (RUN002 under CUDA graphs explains what remains), and its worth is its measured step time.
"""

from __future__ import annotations

import ast

from tdiag.analyzer.model import Analysis, Finding
from tdiag.fixing.plan import Edit, PlannedPatch, is_step_time


def patched_line(line: int, edits: list[Edit]) -> int | None:
    """Where recorded line ``line`` (1-based) is in the text the edits make; None when an edit replaced it."""
    at, shift = line - 1, 0
    for e in edits:
        if e.start == e.end:  # an insertion before line ``e.start``
            if e.start <= at:
                shift += len(e.new)
        elif e.start <= at < e.end:
            return None
        elif e.end <= at:
            shift += len(e.new) - (e.end - e.start)
    return line + shift


def _same_kind(code: str, other: str) -> bool:
    """The same rule; for a graph break, any break rule: a statement either still breaks or not, and torch's reason
    (so the rule that words it) can change under the patch (``.item()`` captured by torch's hint, its value then
    refused by the numpy call on the same line: BRK002 becomes BRK005, the break stays)."""
    return code == other or (code.startswith("BRK") and other.startswith("BRK"))


def _stays(finding: Finding, edits: list[Edit], after: Analysis, before: Analysis | None = None) -> bool:
    line = patched_line(finding.line, edits)
    if line is not None and any(
            _same_kind(f.code, finding.code) and f.path == finding.path and f.line == line for f in after.findings):
        return True
    return before is not None and _moved(finding, edits, after, before)


def _moved(finding: Finding, edits: list[Edit], after: Analysis, before: Analysis) -> bool:
    """A graph break breaks the same function at a line where none broke before: the break moved rather than went
    (torch's ``capture_dynamic_output_shape_ops`` for a ``bincount``, whose data-dependent size then breaks the next
    line that uses it, in torch's other words: a break rule again, another GB id)."""
    if not finding.code.startswith("BRK") or not finding.function:
        return False
    was = {patched_line(f.line, edits) for f in before.findings
           if f.code.startswith("BRK") and f.path == finding.path}
    inside = _function_lines(after.sources.get(finding.path), finding.function)
    return any(f.code.startswith("BRK") and f.path == finding.path and f.line not in was
               and (f.function == finding.function or f.line in inside) for f in after.findings)


def _function_lines(source: str | None, name: str) -> set[int]:
    """The lines of every function named ``name`` in ``source``: a break in code nested there (a list
    comprehension, a lambda, an inner function: Python gives each its own frame, and torch its own name) is a break
    of that function too (torch's hint for a ``torch.unique`` whose loop over the classes then fails in the
    comprehension beside it)."""
    if not source:
        return set()
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return set()
    return {line for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name
            for line in range(node.lineno, (node.end_lineno or node.lineno) + 1)}


def riders(kept: list[PlannedPatch], after: Analysis, before: Analysis | None = None) -> list[PlannedPatch]:
    """The structural patches of ``kept`` whose every finding the patched run (``after``) still reports there, or
    reports moved within its function (``before``: the run the patches were planned on)."""
    edits_by_file: dict[str, list[Edit]] = {}
    for p in kept:
        edits_by_file.setdefault(p.path, []).extend(p.edits)
    return [p for p in kept if not is_step_time(p) and p.findings
            and all(_stays(f, edits_by_file.get(f.path, []), after, before) for f in p.findings)]
