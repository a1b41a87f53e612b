"""Hooks registered on a module after torch.compile compiled code: recorded, because compiled code may ignore them.

Dynamo does not guard on a module's hooks by default (``torch._dynamo.config.skip_nnmodule_hook_guards``): a
forward hook added after the model's first compiled call is never called by the compiled model, and nothing is
reported (a steering hook on an evaluation pass changed 92 of 128 predictions eagerly, none compiled). tdiag wraps
``nn.Module.register_forward_hook`` and ``register_forward_pre_hook`` and records each registration made after a
frame was compiled: the module's class, the user's line, and how many frames torch had compiled by then. The
wrapper calls the original with the same arguments and returns its handle: nothing changes for the program.

Event (docs/record-format.md): ``{"type": "module_hook", "t", "kind", "module", "path", "line", "function",
"compiled_frames"}``. analyzer/rules/egr001 and egr002 read it.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from typing import Any

KINDS = ("register_forward_hook", "register_forward_pre_hook")
EVENT = "module_hook"


def install(write: Callable[[dict[str, Any]], None], user_path: Callable[[str], str | None],
            failed: Callable[[str, BaseException], None]) -> Callable[[], None]:
    """Wrap the registration methods; returns the function that puts them back. ``user_path``: a file's path as
    outputs show it (relative to the project root) when it is the user's, else None. ``failed``: where a fault of
    the watch goes (the record's capture problems: what could not be seen is said)."""
    import torch

    module_class = torch.nn.Module
    originals = {name: getattr(module_class, name) for name in KINDS}

    def wrap(name: str, original: Callable) -> Callable:
        def register(self, *args, **kwargs):
            handle = original(self, *args, **kwargs)
            try:
                compiled = _compiled_frames()
                if compiled:
                    frame, direct = _user_frame(user_path)
                    write({"type": EVENT, "t": time.time(), "kind": name, "module": type(self).__name__,
                           "path": frame[0] if frame else None, "line": frame[1] if frame else None,
                           "function": frame[2] if frame else None, "compiled_frames": compiled,
                           "direct": direct})
            except Exception as exc:  # the program's registration stands; the record says what was not seen
                failed("module hook watch", exc)
            return handle

        register.__wrapped__ = original
        register.__name__ = original.__name__
        register.__doc__ = original.__doc__
        return register

    for name, original in originals.items():
        setattr(module_class, name, wrap(name, original))

    def restore() -> None:
        for name, original in originals.items():
            setattr(module_class, name, original)

    return restore


def _compiled_frames() -> int:
    """Frames torch has compiled so far in this process (its own counter)."""
    from torch._dynamo.utils import counters

    return int(counters["frames"].get("ok", 0))


def _user_frame(user_path: Callable[[str], str | None]) -> tuple[tuple[str, int, str] | None, bool]:
    """(the nearest frame of the user's code, whether it called the registration itself rather than a library)."""
    frame, direct = sys._getframe(2), True
    while frame is not None:
        path = user_path(frame.f_code.co_filename)
        if path is not None:
            return (path, frame.f_lineno, frame.f_code.co_name), direct
        frame, direct = frame.f_back, False
    return None, False
