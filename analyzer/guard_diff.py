"""The guards that failed at a recompile besides the one torch logged.

torch logs one failure per cache entry: the first guard that failed (torch/_dynamo/guards.py,
``get_guard_fail_reason_helper``: "Only the first failed check of guard_manager is reported"). A call that changes a
tensor's size and an attribute the model reads fails both, and the log names the size. The attribute's guard is still
in the record: the failed entry guarded ``model.config.problem_type is None``, the compile that replaced it guards
``model.config.problem_type == 'single_label_classification'``. A guard on a value in the old entry whose subject the
new compile guards on a different value failed too: the new compile traced the value the call passed.

Only value guards are compared (``is None``, ``is not None``, ``==``): tensor sizes change under automatic dynamic
by design, and identity or type guards name objects that are rebuilt without meaning anything.
"""

from __future__ import annotations

import re

from tdiag.analyzer.model import Guard, GuardFailure
from tdiag.analyzer.torch_text import classify_guard_expression

_VALUE_KINDS = ("NONE_MATCH", "NOT_NONE_MATCH", "EQUALS_MATCH")
_LOCAL = re.compile(r"L\[\s*['\"](.*?)['\"]\s*\]")  # torch's strip_local_scope: its failure texts name `model`, not L['model']
_NONE = re.compile(r"^(?P<subject>.+?) is (?P<value>None|not None)$")
_EQUALS = re.compile(r"^(?P<subject>.+?) == (?P<value>.+)$")


def stage(facts) -> None:
    """Fills ``Recompile.hidden_failures`` from the guards of each recompile's failed entry and of its new compile
    (a stage of its own: a fault here loses these causes only, and says so)."""
    a = facts.analysis
    graphs = {(g.rank, g.compile_id): g for g in a.graphs}
    for r in a.recompiles:
        entry = graphs.get((r.rank, r.failures[0].entry)) if r.failures else None
        new = graphs.get((r.rank, r.compile_id))
        if entry is None or new is None:
            continue
        r.hidden_failures = hidden_failures(entry.guards, new.guards, r.failures)
        for failure in r.hidden_failures:
            failure.path = facts.paths.guard_comment_path(failure.path) if failure.path else None


def value_guards(guards: list[Guard]) -> dict[str, tuple[str, Guard]]:
    """subject -> (the value it is guarded to, the guard), for the value guards of one compile."""
    out = {}
    for guard in guards:
        if guard.kind not in _VALUE_KINDS:
            continue
        text = as_torch_logs(guard.text)
        m = _NONE.match(text) or _EQUALS.match(text)
        if m:
            out.setdefault(m["subject"], (m["value"].strip(), guard))
    return out


def hidden_failures(failed_entry: list[Guard], recompiled: list[Guard],
                    logged: list[GuardFailure]) -> list[GuardFailure]:
    """The value guards of ``failed_entry`` that ``recompiled`` guards to another value, as failures of the same
    recompile (``hidden``: read from the two compiles' guards, not from torch's log). Subjects torch logged are left
    out."""
    names = {f.subject for f in logged if f.subject}
    after = value_guards(recompiled)
    out = []
    for subject, (value, guard) in value_guards(failed_entry).items():
        if subject not in after or after[subject][0] == value or "___" in subject:
            continue  # unchanged, no longer guarded, or Dynamo's own value (a resumed frame's stack slot)
        if any(subject in f.text for f in logged) or any(re.match(rf"{re.escape(n)}\b", subject) for n in names):
            continue  # torch's failure names it (the very guard, or the same tensor or object)
        text = as_torch_logs(guard.text)
        kind, classified, _ = classify_guard_expression(text)  # as torch's own failure text would classify
        if kind == "size":
            continue  # a size written as a value guard: sizes change under automatic dynamic by design
        out.append(GuardFailure(entry=logged[0].entry if logged else "?", text=text,
                                kind=kind, subject=classified or subject,
                                expected=value, actual=after[subject][0], source=guard.source, path=guard.path,
                                line=guard.line, hidden=True))
    return out


def as_torch_logs(guard_text: str) -> str:
    """A guard's text as torch words its failure (torch/_dynamo/guards.py ``strip_local_scope``)."""
    return _LOCAL.sub(r"\1", guard_text.strip())
