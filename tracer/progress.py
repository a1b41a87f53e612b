"""Compile brackets from ``torch._dynamo.callback`` (semi-public): live progress and lazy-backward timing."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


def install(sink: Callable[[dict[str, Any]], None]) -> Callable[[], None] | None:
    try:
        from torch._dynamo.callback import callback_handler
    except Exception:
        return None

    def on_start(args: Any = None) -> None:
        sink({"type": "compile_start", "t": time.time(), **_describe(args)})

    def on_end(args: Any = None) -> None:
        sink({"type": "compile_end", "t": time.time(), **_describe(args)})

    try:
        callback_handler.register_start_callback(on_start)
        callback_handler.register_end_callback(on_end)
    except Exception:
        return None

    def undo() -> None:
        callback_handler.remove_start_callback(on_start)
        callback_handler.remove_end_callback(on_end)

    return undo


def _describe(args: Any) -> dict[str, Any]:
    if args is None:
        return {}
    trigger = getattr(args, "callback_trigger", None)
    return {
        "compile_id": str(getattr(args, "compile_id", None)) if getattr(args, "compile_id", None) is not None else None,
        "trigger": getattr(trigger, "name", str(trigger) if trigger is not None else None),
    }
