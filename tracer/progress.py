"""Compile brackets from ``torch._dynamo.callback`` (semi-public): live progress and lazy-backward timing."""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any, Literal

from tdiag import torch_events as te
from tdiag.lean_dataclass import lean_dataclass

ProgressKind = Literal["compile_start", "compile_end", "frame", "compiled", "graph_break", "recompile"]


@lean_dataclass(frozen=True)
class CompileProgress:
    """What a live display needs to know, in tdiag's words: torch's event names stay inside the capture."""

    kind: ProgressKind
    what: str | None = None  # compile_start: "<trigger> <compile id>"; frame: "<function> [<frame>/<compile>]"


def from_bracket(event: dict[str, Any]) -> CompileProgress | None:
    """A compile bracket (what ``install`` delivers) as progress."""
    if event.get("type") == "compile_start":
        what = f"{event.get('trigger') or 'compile'} {event.get('compile_id') or ''}".strip()
        return CompileProgress("compile_start", what)
    if event.get("type") == "compile_end":
        return CompileProgress("compile_end")
    return None


def from_torch_event(name: str, metadata: dict[str, Any]) -> CompileProgress | None:
    """A structured-trace event as progress; None for the events no live display shows."""
    if name == te.GRAPH_BREAK_REASON:
        return CompileProgress("graph_break")
    if name == te.RECOMPILE_REASONS:
        return CompileProgress("recompile")
    if name == te.COMPILATION_METRICS:
        return CompileProgress("compiled")
    if name == te.DYNAMO_START:
        stack = (metadata.get(te.DYNAMO_START) or {}).get("stack") or [{}]
        function = stack[-1].get("name") if isinstance(stack[-1], dict) else None
        what = f"{function} [{metadata.get('frame_id')}/{metadata.get('frame_compile_id')}]" if function else None
        return CompileProgress("frame", what)
    return None


def install(
    sink: Callable[[dict[str, Any]], None], on_error: Callable[[str, BaseException], None] | None = None
) -> Callable[[], None] | None:
    """Register the brackets; a failing ``sink`` is reported to ``on_error``, never raised into the compile."""
    from tdiag.tracer import compile_callbacks

    def deliver(kind: str, args: Any, stack: list[dict[str, Any]] | None = None) -> None:
        try:
            event = {"type": kind, "t": time.time(), **_describe(args)}
            if stack:
                event["stack"] = stack
            sink(event)
        except Exception as exc:
            if on_error is not None:
                on_error("compile-progress callback", exc)

    def on_start(args: Any = None) -> None:
        deliver("compile_start", args, caller_stack())

    def on_end(args: Any = None) -> None:
        deliver("compile_end", args)

    try:
        return compile_callbacks.register(start=on_start, end=on_end)
    except Exception:
        return None


EVAL_FRAME = ("_dynamo/eval_frame.py", "_dynamo\\eval_frame.py")
CALLER_FRAMES = 12  # enough to get from a compiled module's wrappers to the user's line


def caller_stack() -> list[dict[str, Any]]:
    """The frames that called the function being compiled, innermost last, as the interpreter has them.

    torch's own ``dynamo_start`` stack drops the direct caller of a compiled function (seen on torch 2.13 with
    Python 3.11: ``main()`` calling ``cf(x)`` is logged as the line that called ``main``), so the call site of a
    recompile would be a line too far out. The compile callback runs on the compiling thread under torch's
    ``eval_frame`` wrapper: what lies beyond that wrapper is the user's call. Empty when there is no such frame
    (a resumed frame entered from compiled code)."""
    frame = sys._getframe(2)
    while frame is not None and not frame.f_code.co_filename.endswith(EVAL_FRAME):
        frame = frame.f_back
    while frame is not None and frame.f_code.co_filename.endswith(EVAL_FRAME):
        frame = frame.f_back
    out = []
    while frame is not None and len(out) < CALLER_FRAMES:
        out.append({"filename": frame.f_code.co_filename, "line": frame.f_lineno, "name": frame.f_code.co_name})
        frame = frame.f_back
    return out[::-1]


def _describe(args: Any) -> dict[str, Any]:
    if args is None:
        return {}
    trigger = getattr(args, "callback_trigger", None)
    return {
        "compile_id": str(getattr(args, "compile_id", None)) if getattr(args, "compile_id", None) is not None else None,
        "trigger": getattr(trigger, "name", str(trigger) if trigger is not None else None),
    }
