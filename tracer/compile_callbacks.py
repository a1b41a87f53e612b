"""tdiag's compile callbacks on ``torch._dynamo.callback.callback_handler``, kept across ``torch._dynamo.reset()``.

reset() clears every registered callback (torch's and the program's own, as torch means it). A program that resets
between compiles (tests, notebooks, benchmarks comparing configurations) would silently end tdiag's compile
brackets there. The handler's ``clear`` is wrapped once, while tdiag has callbacks on it: torch's clear runs first
(the program's callbacks are cleared exactly as without tdiag), then tdiag's live ones are registered again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Callback = Callable[..., None]
_live: list[tuple[str, Callback]] = []  # ("start" | "end", callback), in registration order


def register(start: Callback | None = None, end: Callback | None = None) -> Callable[[], None]:
    """Register the callbacks; the undo that removes them. Raises what the handler raises (ImportError on a torch
    without compile callbacks): the caller reports the touchpoint as missing."""
    from torch._dynamo.callback import callback_handler as handler

    mine = [(kind, cb) for kind, cb in (("start", start), ("end", end)) if cb is not None]
    for kind, cb in mine:
        _add(handler, kind, cb)
    _live.extend(mine)
    _wrap_clear(handler)

    def undo() -> None:
        for entry in mine:
            if entry in _live:
                _live.remove(entry)
            _remove(handler, *entry)
        if not _live and handler.__dict__.get("clear") is not None:
            del handler.clear  # the class's own method again

    return undo


def _wrap_clear(handler: Any) -> None:
    if "clear" in handler.__dict__:
        return
    torch_clear = handler.clear

    def clear_then_register_tdiag() -> None:
        torch_clear()
        for kind, cb in _live:
            _add(handler, kind, cb)

    handler.clear = clear_then_register_tdiag


def _add(handler: Any, kind: str, cb: Callback) -> None:
    (handler.register_start_callback if kind == "start" else handler.register_end_callback)(cb)


def _remove(handler: Any, kind: str, cb: Callback) -> None:
    try:
        (handler.remove_start_callback if kind == "start" else handler.remove_end_callback)(cb)
    except ValueError:
        pass  # not registered: torch's clear raised (callbacks pending) before tdiag's could be put back
