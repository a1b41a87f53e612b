"""A `try` whose `except` would have caught the error that stopped a compiled program, around code Dynamo traced.

Dynamo traces a `try` body into the graph with fake tensors, where a data-dependent failure (a Cholesky of a matrix
that is not positive-definite, an index out of range on the device) cannot happen, so the graph has no `except` path:
when the compiled graph raises the error at run time, it escapes the compiled function, and the program stops where
eager took the `except` branch (blind batch 9: GPyTorch's `psd_safe_cholesky` jitter retry). The cause is read from
the user's code (the traced lines, analyzer/traced_lines.py), never from the program's shape; the exception's type
decides which handlers catch it, as Python would (its class, resolved where it can be, and its bases).
"""

from __future__ import annotations

import ast
import builtins
import pydoc

from tdiag.analyzer.paths import is_library_display
from tdiag.analyzer.traced_lines import traced_lines
from tdiag.lean_dataclass import lean_dataclass

# exceptions of the compile stack itself (tracing, lowering): raised while compiling, not by a graph running
COMPILE_STACK = ("torch._dynamo.", "torch._inductor.", "torch.fx.", "torch._subclasses.", "torch._guards.")


@lean_dataclass(frozen=True)
class CaughtTry:
    """The `try` (its first line), the function holding it, the handler's name for the error, the traced line."""

    path: str
    line: int
    function: str
    catches: str
    traced_line: int


def caught_by_traced_try(exception: str | None, analysis) -> CaughtTry | None:
    """The first `try` in a traced user function whose body holds a traced line and one of whose handlers catches
    ``exception`` (a qualified type name); None for an error of the compile stack itself, or where none does."""
    if not exception or exception.startswith(COMPILE_STACK):
        return None
    names = _caught_by(exception)
    for path, lines in sorted(traced_lines(analysis).items()):
        text = analysis.sources.get(path)
        if not text or is_library_display(path):
            continue
        try:
            tree = ast.parse(text)
        except SyntaxError:
            continue
        for function in ast.walk(tree):
            if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(function):
                if not isinstance(node, ast.Try) or not node.body:
                    continue
                body_end = node.body[-1].end_lineno or node.body[-1].lineno
                held = sorted(n for n in lines if node.body[0].lineno <= n <= body_end)
                caught = next((name for h in node.handlers for name in _handler_names(h) if name in names), None)
                if held and caught:
                    return CaughtTry(path, node.lineno, function.name, caught, held[0])
    return None


def _caught_by(exception: str) -> set[str]:
    """The names an `except` clause may use to catch ``exception``: its own and its bases' (resolved where the type
    imports here), a bare `except:` and `Exception`/`BaseException` always."""
    names = {exception.rsplit(".", 1)[-1], "Exception", "BaseException", ""}
    found = pydoc.locate(exception) or getattr(builtins, exception, None)
    if isinstance(found, type):
        names |= {base.__name__ for base in found.__mro__}
    return names


def _handler_names(handler: ast.ExceptHandler) -> set[str]:
    kind = handler.type
    if kind is None:
        return {""}
    items = kind.elts if isinstance(kind, ast.Tuple) else [kind]
    return {e.id if isinstance(e, ast.Name) else e.attr for e in items if isinstance(e, (ast.Name, ast.Attribute))}
