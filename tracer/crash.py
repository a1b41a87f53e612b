"""The exception a program (or one of its threads) dies of, kept in the record as a ``crash`` event.

A program that torch.compile kills is the most common reason to reach for tdiag, so the ending exception is
recorded with what torch attached to it: its message, the traceback's frames, the user stack Dynamo was tracing
(``real_stack``), the compile id, the graph-break type and the backend's inner exception. The analysis decides
whether torch caused it. Describing never raises and never changes the exception or how it is printed.

Threads: ``threading.excepthook`` is wrapped (the previous hook is always called, with the same arguments, so the
thread's traceback prints exactly as without tdiag); the wrapper is removed when the capture ends, unless the
program replaced it meanwhile.
"""

from __future__ import annotations

import os
import threading
import traceback
from collections.abc import Callable
from types import TracebackType
from typing import Any

MAX_MESSAGE = 20_000  # torch's messages run to a few KB; a pathological one is cut, not dropped
MAX_FRAMES = 200
MAX_CHAIN = 5
# Attributes torch attaches to its compile exceptions that name the cause (torch._dynamo.exc.Unsupported: gb_type,
# real_stack, compile_id; torch._dynamo.exc.BackendCompilerFailed: backend_name, inner_exception), read with getattr:
# listed in tracer/torch_compat.py.
NAMED_ATTRIBUTES = ("gb_type", "backend_name")


def describe(exc: BaseException, thread: str | None = None) -> dict[str, Any]:
    """The ``crash`` event for ``exc`` (see docs/record-format.md)."""
    event: dict[str, Any] = {"type": "crash", "thread": thread or threading.current_thread().name}
    try:
        event.update(_exception(exc))
        event["frames"] = _frames(exc.__traceback__)
        stack = _real_stack(exc)
        if stack:
            event["user_stack"] = stack
        compile_id = getattr(exc, "compile_id", None)
        if compile_id is not None:
            event["compile_id"] = str(compile_id)
        for name in NAMED_ATTRIBUTES:
            value = getattr(exc, name, None)
            if isinstance(value, str) and value:
                event[name] = value
        inner = getattr(exc, "inner_exception", None)
        if isinstance(inner, BaseException):
            event["inner"] = _exception(inner)
        chain = _chain(exc)
        if chain:
            event["causes"] = chain
    except Exception as failure:  # a half-described crash beats none; say what went wrong
        event["describe_error"] = f"{type(failure).__name__}: {failure}"[:300]
    return event


def _exception(exc: BaseException) -> dict[str, str]:
    cls = type(exc)
    module = getattr(cls, "__module__", "") or ""
    name = cls.__qualname__ if module in ("builtins", "") else f"{module}.{cls.__qualname__}"
    try:
        message = str(exc)
    except Exception:  # an exception whose __str__ raises: Python prints <exception str() failed>
        message = "<exception str() failed>"
    return {"exception": name, "message": message[:MAX_MESSAGE]}


def _frames(tb: TracebackType | None) -> list[list[Any]]:
    frames = []
    while tb is not None and len(frames) < MAX_FRAMES:
        code = tb.tb_frame.f_code
        frames.append([code.co_filename, tb.tb_lineno, code.co_name])
        tb = tb.tb_next
    return frames


def _real_stack(exc: BaseException) -> list[list[Any]]:
    """The user frames Dynamo was tracing when it raised (torch's ``real_stack``, a StackSummary)."""
    stack = getattr(exc, "real_stack", None)
    if not isinstance(stack, list):  # StackSummary is a list of FrameSummary
        return []
    out = []
    for frame in stack[-MAX_FRAMES:]:
        if isinstance(frame, traceback.FrameSummary):
            out.append([frame.filename, frame.lineno or 0, frame.name, (frame.line or "").strip()])
    return out


def _chain(exc: BaseException) -> list[dict[str, Any]]:
    """The exceptions this one was raised from or during (``__cause__``/``__context__``), innermost last."""
    out, seen, current = [], {id(exc)}, exc
    while len(out) < MAX_CHAIN:
        nxt = current.__cause__ or current.__context__
        if nxt is None or id(nxt) in seen:
            break
        seen.add(id(nxt))
        item: dict[str, Any] = _exception(nxt)
        item["message"] = item["message"][:2000]
        item["frames"] = _frames(nxt.__traceback__)[-20:]
        out.append(item)
        current = nxt
    return out


def without_tool_frames(exc: BaseException, tool_dirs: tuple[str, ...]) -> None:
    """Unlink tdiag's own frames (e.g. the runtime window's wrapper around a compiled call) from the tracebacks of
    ``exc`` and the exceptions chained to it, so that what Python prints is what it prints without tdiag."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        current.__traceback__ = _strip(current.__traceback__, tool_dirs)
        current = current.__cause__ or current.__context__


def _strip(tb: TracebackType | None, tool_dirs: tuple[str, ...]) -> TracebackType | None:
    kept: list[TracebackType] = []
    while tb is not None:
        if not _is_tool(tb.tb_frame.f_code.co_filename, tool_dirs):
            kept.append(tb)
        tb = tb.tb_next
    for a, b in zip(kept, kept[1:]):
        if a.tb_next is not b:
            a.tb_next = b
    if kept and kept[-1].tb_next is not None:
        kept[-1].tb_next = None
    return kept[0] if kept else None


def _is_tool(filename: str, tool_dirs: tuple[str, ...]) -> bool:
    if filename.startswith("<"):
        return False
    real = os.path.realpath(filename)
    return any(real.startswith(d + os.sep) for d in tool_dirs)


class ThreadCrashes:
    """Wrap ``threading.excepthook`` for the capture: record a thread's ending exception, then hand it on."""

    def __init__(self, write: Callable[[dict[str, Any]], None], tool_dirs: tuple[str, ...]):
        self._write = write
        self._tool_dirs = tool_dirs
        self._previous: Callable[[Any], Any] | None = None
        self._installed: Callable[[Any], None] | None = None  # the bound method, kept: each access makes a new one

    def install(self) -> Callable[[], None]:
        self._previous = threading.excepthook
        self._installed = self._hook
        threading.excepthook = self._installed
        return self.uninstall

    def uninstall(self) -> None:
        if threading.excepthook is self._installed and self._previous is not None:
            threading.excepthook = self._previous

    def _hook(self, args: Any) -> None:
        previous = self._previous or threading.__excepthook__
        exc = args.exc_value
        if exc is not None and not isinstance(exc, SystemExit):  # SystemExit ends a thread silently
            try:
                self._write(describe(exc, thread=getattr(args.thread, "name", None)))
                without_tool_frames(exc, self._tool_dirs)
                args = threading.ExceptHookArgs([args.exc_type, exc, exc.__traceback__, args.thread])
            except Exception:  # recording must never cost the program its own report
                pass
        previous(args)
