"""Parsers for torch's human-oriented payload texts (graph-break reasons, tracebacks, guard trees, recompile reasons).

Torch may reword these; every parser keeps the raw text and degrades to less structure, never to an exception.
"""

from __future__ import annotations

import json
import re
from dataclasses import field

from tdiag.analyzer.model import Guard, GuardFailure

from tdiag.lazy_regex import lazy_regex
from tdiag.lean_dataclass import lean_dataclass

GB_URL = lazy_regex(r"(https?://\S+/gb/gb(\d{4})\.html)")
TRACEBACK_FRAME = lazy_regex(r'^\s*File "(?P<path>[^"]+)", line (?P<line>\d+), in (?P<func>.+)$')
BREAK_HEADER = lazy_regex(r"^Graph break in user code at (?P<path>.+):(?P<line>\d+)\s*$")
SECTION = lazy_regex(r"^\s{2}(Explanation|Hint|Developer debug context):\s?(.*)$")


@lean_dataclass
class ParsedFrame:
    """A frame of a stack that torch printed as text."""

    path: str
    line: int
    function: str
    code: str | None = None


@lean_dataclass
class ParsedBreak:
    """A graph break read from torch's text: where, why, the user stack."""

    path: str | None = None
    line: int | None = None
    reason: str = ""
    explanation: str = ""
    hints: list[str] = field(default_factory=list)
    context: str = ""
    gb_id: str | None = None
    gb_url: str | None = None
    user_stack: list[ParsedFrame] = field(default_factory=list)


def parse_traceback(lines: list[str]) -> list[ParsedFrame]:
    """Frames of a ``traceback.format_list`` block; code lines follow their frame, caret lines are dropped."""
    frames: list[ParsedFrame] = []
    for line in lines:
        m = TRACEBACK_FRAME.match(line)
        if m:
            frames.append(ParsedFrame(m["path"], int(m["line"]), m["func"].strip()))
        elif frames and frames[-1].code is None and line.strip() and not set(line.strip()) <= set("^~ "):
            frames[-1].code = line.strip()
    return frames


def parse_graph_break(text: str) -> ParsedBreak:
    out = ParsedBreak()
    lines = text.splitlines()
    m = GB_URL.search(text)
    if m:
        out.gb_url, out.gb_id = m.group(1), "GB" + m.group(2)
    reason_lines: list[str] = []
    section: str | None = None
    stack_start = None
    for i, line in enumerate(lines):
        hm = BREAK_HEADER.match(line)
        if hm and out.path is None:
            out.path, out.line = hm["path"], int(hm["line"])
            continue
        if line.startswith("Graph Break Reason:"):
            section = "reason"
            reason_lines.append(line.split(":", 1)[1].strip())
            continue
        if line.startswith("User code traceback:"):
            stack_start = i + 1
            break
        sm = SECTION.match(line)
        if sm:
            section = sm.group(1)
            if section == "Hint":
                out.hints.append(sm.group(2).strip())
            elif section == "Explanation":
                out.explanation = sm.group(2).strip()
            else:
                out.context = sm.group(2).strip()
            continue
        if "For more details about this graph break" in line:
            section = None
            continue
        if section == "reason":
            reason_lines.append(line.strip())
        elif section == "Explanation" and line.strip():
            out.explanation += "\n" + line.rstrip()
        elif section == "Hint" and line.strip() and out.hints:
            out.hints[-1] += " " + line.strip()
    # The last non-empty reason line is the graph-break type ("Data-dependent branching"); earlier ones are framing.
    reason_lines = [r for r in reason_lines if r]
    out.reason = reason_lines[-1] if reason_lines else ""
    if stack_start is not None:
        block = []
        for line in lines[stack_start:]:
            if line.startswith("Traceback (most recent call last)") or (not line.strip() and block and not block[-1].strip()):
                break
            block.append(line)
        out.user_stack = parse_traceback(block)
    return out


# -- recompile reasons ----------------------------------------------------------------------------------------
ENTRY_PREFIX = lazy_regex(r"^(?P<entry>\d+/\d+):\s*(?P<rest>.*)$", re.S)
# The name may hold quotes (``tensor 'kwargs['input_ids']'``, a parameter's ``self._modules['fc']...``), and torch
# may add advice after the values ("... actual BFloat16. Guard failed on a parameter, consider ...").
TENSOR_MISMATCH = lazy_regex(
    r"tensor '(?P<name>.+?)' (?P<what>size|stride|dtype|device|requires_grad|dispatch key set|rank|type)"
    r"(?: mismatch| changed)(?: at index (?P<dim>\d+))?\.?\s*(?:expected (?P<expected>[^,]+?))?"
    r"(?:,\s*actual (?P<actual>[^\s,]+?)\.?(?:\s.*)?)?\s*$"
)
# `guard  # source line  # file:line in func`, torch sometimes adding `(HINT: ...)` after it; or, for a guard torch
# made itself (a tensorified float: `(1.0 + ((-1)*decay)) == 0.75  # (fx/passes/...py:429 in _tensorify_impl)`), no
# source line and the location in parentheses
# torch's comment after a guard: "  # SOURCE  # LOC:LINE in FUNC", then a hint or the frame the line was inlined from
# ("(HINT: ...)", "(nn/functional.py:1491 in dropout)"), or the location alone in brackets
# torch's comment after a guard: the user's source line, where it is, then a hint, an inlined frame or a note on a
# 0/1-specialised size ("(user code shown is first use of this value--the guard itself is not due user code but due
# to 0/1 specialization in the framework; to avoid specialization try ...mark_unbacked(tensor, dim))")
GUARD_COMMENT = lazy_regex(r"\s+#\s*(?:(?P<source>.*?)\s+#\s*(?P<loc>\S+):(?P<line>\d+) in (?P<func>\S+)"
                           r"(?:\s+\((?:HINT:\s*(?P<hint>.*)|[^()\s]+:\d+ in [^()\s]+"
                           r"|user code shown is first use of this value.*?(?:try (?P<specialized>.*))?)\))?"
                           r"|\((?P<ploc>\S+):(?P<pline>\d+) in (?P<pfunc>\S+)\))\s*$")
COMPARISON = lazy_regex(r"^(?P<subject>.+?)\s*(?P<op>==|!=|<=|>=|<|>)\s*(?P<value>.+?)$")


def split_recompile_payload(payload: str | None) -> list[str]:
    if not payload:
        return []
    text = payload.strip()
    if text.startswith("["):
        try:
            items = json.loads(text)
            if isinstance(items, list):
                return [str(i) for i in items]
        except ValueError:
            pass
    return [text]


def parse_guard_failure(item: str) -> GuardFailure:
    """One entry of a recompile reason; ``path`` is as torch wrote it (the caller maps it to a display path)."""
    head, _, stack_text = item.partition("\nUser stack trace:")
    m = ENTRY_PREFIX.match(head.strip())
    entry, body = (m["entry"], m["rest"]) if m else ("?", head.strip())
    first = body.splitlines()[0] if body else ""
    out = GuardFailure(entry=entry, text=first.strip(), kind="other")
    stack = parse_traceback(stack_text.splitlines()) if stack_text else []
    cm = GUARD_COMMENT.search(first)
    guard = first
    if cm:
        guard = first[: cm.start()].strip()
        if cm["line"]:
            out.source, out.line = cm["source"].strip(), int(cm["line"])
        out.hint = cm["hint"] or (f"torch specialised this size on 0 or 1; to avoid it, {cm['specialized']}"
                                  if cm["specialized"] else None)
        out.text = guard
    if stack:
        out.path, out.line = stack[-1].path, stack[-1].line
        out.source = out.source or stack[-1].code
    tm = TENSOR_MISMATCH.search(guard)
    if tm:
        out.kind = tm["what"].replace(" ", "_")
        out.subject = tm["name"]
        out.dim = int(tm["dim"]) if tm["dim"] else None
        out.expected = (tm["expected"] or "").strip() or None
        out.actual = (tm["actual"] or "").strip() or None
        if out.expected and "=" in out.expected and out.kind == "requires_grad":
            out.expected = out.expected.split("=", 1)[1]
        return out
    out.kind, out.subject, out.expected = classify_guard_expression(guard)
    return out


def classify_guard_expression(guard: str) -> tuple[str, str | None, str | None]:
    """Kind, subject and expected value of a failing guard expression such as ``k == 2`` or ``L['self'].training``."""
    g = guard.strip()
    typed = _EXPECTED_TYPE.search(g)  # "expected type of 'b' to be a tensor type, ' but found <class 'int'>"
    if typed:
        return "type", typed["name"], None
    if g.startswith("Duplicate tensors found"):  # the same tensor passed as two arguments: one graph for aliased inputs
        names = re.findall(r'"(\w+)"', g)
        return "aliasing", " and ".join(names) or None, None
    if "___check_obj_id" in g or "ID_MATCH" in g:
        return "identity", _first_arg(g), None
    if "___check_type_id" in g or "TYPE_MATCH" in g:
        return "type", _first_arg(g), None
    if "len(" in g and "==" in g:
        return "length", g.split("==")[0].strip(), g.split("==", 1)[1].strip()
    if g.startswith("GLOBAL_STATE changed:") and "grad_mode" in g:  # torch.no_grad() around an eval call
        return "grad_mode", "grad_mode", None
    if ".training" in g:
        subject = g.split("==")[0].strip() if "==" in g else g.replace("not ", "").strip()
        expected = g.split("==", 1)[1].strip() if "==" in g else ("False" if g.startswith("not ") else "True")
        return "training", subject, expected
    m = COMPARISON.match(g)
    if m:
        subject, value = m["subject"].strip(), m["value"].strip()
        if _NUMBER.fullmatch(subject) and not _NUMBER.fullmatch(value):  # "2 <= x.size()[0]": the bound first
            subject, value = value, subject
        kind = "size" if re.search(r"\bs\d+\b|size\(|\.shape", subject) else "value"
        return kind, _expression_input(subject), value
    return "other", None, None


_NUMBER = re.compile(r"-?\d+(?:\.\d*)?")
_EXPECTED_TYPE = re.compile(r"expected type of '(?P<name>[^']+)' to be")


def _expression_input(subject: str) -> str:
    """The one input an arithmetic guard reads: ``decay`` for ``(1.0 + ((-1)*decay))`` (a float Dynamo turned into a
    tensor guards on what it computed from it); anything else unchanged."""
    if not subject.startswith("("):
        return subject
    names = set(re.findall(r"(?<![\w.'\]])([A-Za-z_]\w*)(?![\w(\['])", subject))
    return names.pop() if len(names) == 1 else subject


def _first_arg(g: str) -> str | None:
    m = re.search(r"\(([^,()]+(?:\[[^\]]*\])?[^,()]*)", g)
    return m.group(1).strip() if m else None


# -- guard trees ----------------------------------------------------------------------------------------------
GUARD_LINE = lazy_regex(r"^[\s|+\-]*(?P<kind>[A-Z][A-Z0-9_]+):\s*(?P<text>.*)$")


def parse_guard_tree(payload: str | None) -> list[Guard]:
    """Guards of a TREE_GUARD_MANAGER dump, each with the user source line torch attributes it to."""
    guards: list[Guard] = []
    for raw in (payload or "").splitlines():
        m = GUARD_LINE.match(raw)
        if not m or m["kind"] in ("TREE_GUARD_MANAGER", "GuardManager", "RootGuardManager"):
            continue
        text = m["text"]
        g = Guard(kind=m["kind"], text=text.strip())
        comment = text.find(" #")  # the search starts there, not at each character of a long guard expression
        cm = GUARD_COMMENT.search(text, comment) if comment >= 0 else None
        if cm:
            g.text = text[: cm.start()].strip()
            if cm["line"]:
                g.source, g.path, g.line, g.function = cm["source"].strip(), cm["loc"], int(cm["line"]), cm["func"]
            # else a guard torch made itself: its location is torch's (fx/passes/...), no user line
        guards.append(g)
    return guards


# How torch's compile failure says a frame hit the recompile limit (the config was cache_size_limit before 2.6).
RECOMPILE_LIMIT_MARKERS = ("recompile limit", "cache_size_limit", "recompile_limit")


def hit_recompile_limit(fail_reason: str | None) -> bool:
    return bool(fail_reason) and any(m in fail_reason.lower() for m in RECOMPILE_LIMIT_MARKERS)
