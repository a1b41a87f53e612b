"""Map a breaking instruction, seen while Dynamo traced a resume function, to the user's original code object.

Resume functions (``torch_dynamo_resume_in_<fn>_at_<line>``) have a prologue, so their offsets are not the user's.
The instruction is found again in the original code by its source positions and opname, with ``dis`` under the same
interpreter that ran the program.
"""

from __future__ import annotations

import dis
import types
from typing import Any

RESUME_PREFIX = "torch_dynamo_resume_in_"


def original_code(code: types.CodeType) -> types.CodeType:
    """The user's code object behind a Dynamo resume function (the code itself when it is not one)."""
    if not code.co_name.startswith(RESUME_PREFIX):
        return code
    try:
        from torch._dynamo.resume_execution import ContinueExecutionCache

        seen = set()
        while code.co_name.startswith(RESUME_PREFIX) and id(code) not in seen:
            seen.add(id(code))
            meta = ContinueExecutionCache.generated_code_metadata.get(code)
            if meta is None:
                break
            code = meta.code
    except Exception:  # not silent: a resume function left untranslated gets no offset (break_hook.describe)
        pass
    return code


def _positions(instr: Any) -> tuple[Any, ...] | None:
    pos = getattr(instr, "positions", None)
    if pos is None:
        return None
    return (pos.lineno, pos.end_lineno, pos.col_offset, pos.end_col_offset)


def locate(code: types.CodeType, positions: Any, opname: str, fallback_line: int | None = None) -> tuple[int, str] | None:
    """Offset and opname in ``code`` of the instruction with these positions and opname (or the closest match)."""
    try:
        instructions = list(dis.get_instructions(code))
    except Exception:
        return None
    want = None
    if positions is not None:
        want = (positions.lineno, positions.end_lineno, positions.col_offset, positions.end_col_offset)
    same_pos = [i for i in instructions if want is not None and _positions(i) == want]
    exact = [i for i in same_pos if i.opname == opname]
    line = want[0] if want else fallback_line
    same_line = [i for i in instructions if i.opname == opname and _line(i) == line]
    for candidates in (exact, same_line, same_pos[-1:]):
        if candidates:
            return candidates[0].offset, candidates[0].opname
    return None


def _line(instr: Any) -> int | None:
    pos = getattr(instr, "positions", None)
    if pos is not None and pos.lineno is not None:
        return pos.lineno
    return getattr(instr, "starts_line", None)
