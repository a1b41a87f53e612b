"""The one place graph breaks expose their instruction: ``InstructionTranslatorBase.log_graph_break``.

Private API, stable in signature since torch ~2.11 (a module function taking the same arguments before). The wrapper records the exact instruction (offset, opname,
positions) in the user's original code object and always calls through; where the method is missing, breaks are
still recorded from the structured trace, with a note that bytecode offsets are unavailable.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from typing import Any

from tdiag.tracer.bytecode import RESUME_PREFIX, locate, original_code


def install(
    on_break: Callable[[dict[str, Any]], None], on_error: Callable[[str, BaseException], None] | None = None
) -> Callable[[], None] | None:
    """Wrap the method; return an undo function, or None where this torch has no such hook.

    A break the hook cannot describe is reported to ``on_error`` (counted into the record), never raised into torch."""
    try:
        from torch._dynamo import symbolic_convert as sc
    except Exception:
        return None
    cls = getattr(sc, "InstructionTranslatorBase", None)
    original = getattr(cls, "log_graph_break", None) if cls is not None else None
    if original is None:
        return _install_module_function(sc, on_break, on_error)

    @functools.wraps(original)
    def log_graph_break(self, code_options, reason, exc, *args, **kwargs):
        if not getattr(exc, "logged", False):
            try:
                on_break(describe(self, exc))
            except Exception as failure:
                if on_error is not None:
                    on_error("graph-break hook", failure)
        return original(self, code_options, reason, exc, *args, **kwargs)

    cls.log_graph_break = log_graph_break

    def undo() -> None:
        cls.log_graph_break = original

    return undo


def _install_module_function(sc: Any, on_break: Callable[[dict[str, Any]], None],
                             on_error: Callable[[str, BaseException], None] | None) -> Callable[[], None] | None:
    """torch <= 2.10: ``log_graph_break(code_options, reason, exc_info, user_stack)`` is a module function, called
    from the translator's own methods; the translator (``self``) and the exception (``excp``) are its caller's locals.
    Dynamo calls it through the module's globals, so replacing the module attribute is enough."""
    original = getattr(sc, "log_graph_break", None)
    if not callable(original):
        return None

    @functools.wraps(original)
    def log_graph_break(code_options, *args, **kwargs):
        caller = sys._getframe(1).f_locals
        tx = caller.get("self")
        if tx is not None and hasattr(tx, "current_instruction") and hasattr(tx, "f_code"):
            try:
                on_break(describe(tx, caller.get("excp")))
            except Exception as failure:
                if on_error is not None:
                    on_error("graph-break hook", failure)
        return original(code_options, *args, **kwargs)

    sc.log_graph_break = log_graph_break

    def undo() -> None:
        sc.log_graph_break = original

    return undo


def describe(tx: Any, exc: Any) -> dict[str, Any]:
    import torch

    instr = tx.current_instruction
    code = tx.f_code
    positions = getattr(instr, "positions", None)
    site: dict[str, Any] = {
        "type": "break_site",
        "code_name": code.co_name,
        "filename": code.co_filename,
        "traced_offset": instr.offset,
        "opname": instr.opname,
        "line": getattr(positions, "lineno", None) or getattr(tx, "lineno", None),
        "col": getattr(positions, "col_offset", None),
        "end_col": getattr(positions, "end_col_offset", None),
        "end_line": getattr(positions, "end_lineno", None),
        "gb_type": getattr(exc, "gb_type", None),
        "inlined": getattr(tx, "parent", None) is not None,
    }
    try:
        site["compile_id"] = str(torch._guards.CompileContext.current_compile_id())
    except Exception:
        site["compile_id"] = None
    user_code = original_code(code)
    site["user_code_name"] = user_code.co_name
    site["user_firstlineno"] = user_code.co_firstlineno
    if user_code is code:
        # a resume function whose user code could not be found keeps no offset: its own would point into Dynamo's code
        site["offset"] = None if code.co_name.startswith(RESUME_PREFIX) else instr.offset
    else:
        found = locate(user_code, positions, instr.opname, site["line"])
        site["offset"], site["opname"] = found if found else (None, instr.opname)
    return site
