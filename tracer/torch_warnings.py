"""torch's warnings (Python's ``warnings``) recorded as they are shown, what the program prints unchanged.

Python decides whether a warning is shown (the filters, the once-per-location registry, torch's own ``warn_once``)
and only then calls ``warnings._showwarnmsg(msg)``, which prints it to stderr, or hands it to a ``showwarning`` the
program installed (``logging.captureWarnings``) or to a ``catch_warnings(record=True)`` list (pytest). tdiag wraps
that one function and always calls the original with the same message: the warning is shown, filtered and
deduplicated exactly as without tdiag, and tdiag sees each one as often as the user does.

A warning is torch's when the Python frame that issued it belongs to torch (``torch`` or ``torch.*``). torch's
compile stack warns while Dynamo traces the user's code, so the warning's own location is inside torch
(``torch/_dynamo/variables/functions.py:2590`` for an ignored ``lru_cache``): the event also carries the frames
Dynamo was tracing (the user's lines, ``TracingContext.extract_stack``), the interpreter's frames outside torch, and
the nearest of them that is the user's code.

Event (docs/record-format.md): ``{"type": "torch_warning", "t", "message", "category", "module", "filename",
"lineno", "compile_id", "traced_stack", "stack", "user_frame"}``. The wrapper runs in the eager part of a compiled
frame as well (a warning the program's own code issues there): it is marked for Dynamo to skip itself only
(tracer/hidden_capture.py's ``PASS_THROUGH``), so the original is seen by Dynamo as without tdiag.
"""

from __future__ import annotations

import sys
import time
import warnings
from collections.abc import Callable
from typing import Any

MAX_MESSAGE = 20_000
MAX_FRAMES = 12  # interpreter frames kept outside torch: enough to reach the user's line through a library
MAX_REPEATS = 20  # events per (message, location): a program's "always" filter shows one on every step
SKIPPED_MODULES = ("warnings",)  # Python's own implementation of warn(), when the C one is not used


def install(on_warning: Callable[[dict[str, Any]], None], on_error: Callable[[str, BaseException], None],
            is_user_file: Callable[[str], bool]) -> Callable[[], None] | None:
    """Wrap ``warnings._showwarnmsg``; an undo function, or None where this Python has no such function."""
    original = getattr(warnings, "_showwarnmsg", None)
    if not callable(original):
        return None

    seen: dict[tuple, int] = {}

    def _showwarnmsg(msg: Any) -> Any:
        try:
            key = (str(getattr(msg, "message", "")), getattr(msg, "filename", None), getattr(msg, "lineno", None))
            seen[key] = seen.get(key, 0) + 1
            event = describe(msg, sys._getframe(1), is_user_file) if seen[key] <= MAX_REPEATS else None
            if event is not None:
                on_warning(event)
        except Exception as failure:  # never into the program's warning
            on_error("torch warning hook", failure)
        return original(msg)

    _showwarnmsg.__wrapped__ = original  # type: ignore[attr-defined]
    warnings._showwarnmsg = _showwarnmsg  # type: ignore[attr-defined]

    def undo() -> None:
        if getattr(warnings, "_showwarnmsg", None) is _showwarnmsg:  # the program's own replacement stays
            warnings._showwarnmsg = original  # type: ignore[attr-defined]

    return undo


def describe(msg: Any, frame: Any, is_user_file: Callable[[str], bool]) -> dict[str, Any] | None:
    """The ``torch_warning`` event for the shown warning ``msg`` issued below ``frame``; None when not torch's."""
    while frame is not None and _module(frame) in SKIPPED_MODULES:
        frame = frame.f_back
    module = _module(frame) if frame is not None else ""
    if not _is_torch(module):
        return None
    category = getattr(msg, "category", None)
    event: dict[str, Any] = {
        "type": "torch_warning",
        "t": time.time(),
        "message": str(getattr(msg, "message", ""))[:MAX_MESSAGE],
        "category": getattr(category, "__qualname__", str(category)),
        "module": module,
        "filename": str(getattr(msg, "filename", "") or ""),
        "lineno": getattr(msg, "lineno", None) if isinstance(getattr(msg, "lineno", None), int) else None,
        "compile_id": _compile_id(),
        "traced_stack": _traced_stack(),
        "stack": _outside_torch(frame),
    }
    event["user_frame"] = _nearest_user_frame(event, is_user_file)
    return event


def _module(frame: Any) -> str:
    name = frame.f_globals.get("__name__")
    return name if isinstance(name, str) else ""


def _is_torch(module: str) -> bool:
    return module == "torch" or module.startswith("torch.")


def _compile_id() -> str | None:
    torch_guards = sys.modules.get("torch._guards")
    if torch_guards is None:
        return None
    try:
        compile_id = torch_guards.CompileContext.current_compile_id()
    except Exception:  # outside a compile, or a torch without it: the warning has no compile id
        return None
    return str(compile_id) if compile_id is not None else None


def _traced_stack() -> list[list[Any]]:
    """The user frames Dynamo is tracing, innermost last (empty outside a compile)."""
    torch_guards = sys.modules.get("torch._guards")
    if torch_guards is None:
        return []
    try:
        summary = torch_guards.TracingContext.extract_stack()
    except Exception:
        return []
    return [[fs.filename, fs.lineno, fs.name] for fs in summary if isinstance(getattr(fs, "lineno", None), int)]


def _outside_torch(frame: Any) -> list[list[Any]]:
    """The interpreter's frames from the issuing one outwards that are not torch's, innermost last."""
    out = []
    while frame is not None and len(out) < MAX_FRAMES:
        if not _is_torch(_module(frame)):
            out.append([frame.f_code.co_filename, frame.f_lineno, frame.f_code.co_name])
        frame = frame.f_back
    return out[::-1]


def _nearest_user_frame(event: dict[str, Any], is_user_file: Callable[[str], bool]) -> dict[str, Any] | None:
    """The warning's own location when it is the user's, else the innermost user frame Dynamo was tracing, else the
    innermost user frame of the interpreter's stack."""
    if event["filename"] and event["lineno"] is not None and is_user_file(event["filename"]):
        return {"filename": event["filename"], "line": event["lineno"], "name": None}
    for filename, line, name in [*event["traced_stack"][::-1], *event["stack"][::-1]]:
        if filename and not filename.startswith("<") and is_user_file(filename):
            return {"filename": filename, "line": line, "name": name}
    return None
