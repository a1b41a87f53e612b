"""Keep tdiag's own Python frames away from Dynamo: code that torch calls back into (hooks, wrappers) while a compiled
frame's eager part runs would otherwise be handed to Dynamo's frame callback, counted, traced or even compiled.

``hide(*codes)`` marks code objects with ``FrameExecStrategy(SKIP, SKIP)``: Dynamo's C frame evaluator runs them,
and every frame they call, with no callback at all, before any guard or compile (what ``torch.compiler.disable``
does to its wrapper's callees). The mark lives on the code object: every closure sharing it is covered.
See docs/runtime-window.md.
"""

from __future__ import annotations

import types
from typing import Any


class DynamoSkipUnavailable(RuntimeError):
    pass


def hide(*codes: types.CodeType) -> None:
    """Raise ``DynamoSkipUnavailable`` when this torch cannot mark code objects (then nothing was marked)."""
    mark = _marker()
    for code in codes:
        mark(code)


def codes_of(*objects: Any) -> list[types.CodeType]:
    """The code objects of functions and of a class's methods (properties' getters included)."""
    out: list[types.CodeType] = []
    for obj in objects:
        members = vars(obj).values() if isinstance(obj, type) else [obj]
        for member in members:
            fn = member.fget if isinstance(member, property) else getattr(member, "__func__", member)
            code = getattr(fn, "__code__", None)
            if isinstance(code, types.CodeType):
                out.append(code)
    return out


def nested_code(fn: Any, name: str) -> types.CodeType:
    """The code object of the function named ``name`` defined inside ``fn`` (a closure's shared code)."""
    return next(c for c in fn.__code__.co_consts if isinstance(c, types.CodeType) and c.co_name == name)


def _marker():
    try:
        from torch._dynamo.eval_frame import FrameAction, FrameExecStrategy, set_code_exec_strategy
    except ImportError:
        try:  # the C module's own names, in case the Python re-exports move
            from torch._C._dynamo.eval_frame import _FrameAction as FrameAction
            from torch._C._dynamo.eval_frame import _FrameExecStrategy as FrameExecStrategy
            from torch._C._dynamo.eval_frame import set_code_exec_strategy
        except ImportError as exc:
            raise DynamoSkipUnavailable(
                "this torch cannot mark a code object for Dynamo to skip (no set_code_exec_strategy)"
            ) from exc
    strategy = FrameExecStrategy(FrameAction.SKIP, FrameAction.SKIP)
    return lambda code: set_code_exec_strategy(code, strategy)
