"""Record which ``nn.Module`` each node of a Dynamo graph came from, so kernels can be named after their module.

No structured-trace artifact prints ``nn_module_stack``, and the provenance stack traces are empty for layers whose
only caller is torch's own ``nn.Sequential.forward``. Dynamo hands every graph to the backend through
``OutputGraph.call_user_compiler``; wrapping it sees the graph before any backend and before any cache lookup, so a
cache hit is attributed too. One ``module_stacks`` event per graph: node name -> its module stack (path under the
compiled root and class, outermost first) and where the innermost class's ``forward`` is defined. The analyzer joins
these with Inductor's provenance mapping (pre-grad node names).
"""

from __future__ import annotations

import inspect
import re
from functools import lru_cache
from typing import Any

from tdiag.lazy_regex import lazy_regex

# "L['self'].encoder.layers.0" / "L['fn'].3.mlp" -> the path below the compiled root
ROOT = lazy_regex(r"^(?:L|G)\[['\"][^'\"]+['\"]\]\.?")


def install(session: Any):
    from torch._dynamo.output_graph import OutputGraph

    original = OutputGraph.call_user_compiler

    from tdiag.compiler.provenance import never_lowers

    def call_user_compiler(self, gm, *args, **kwargs):
        if never_lowers(getattr(self, "compiler_fn", None)):  # eager/aot_eager: no kernel to name after a module
            return original(self, gm, *args, **kwargs)
        try:
            session.write(_event(gm, getattr(self, "local_scope", None) or {}))
        except Exception as exc:  # diagnostics must never break the compile they watch
            session.note(f"module stacks not recorded: {type(exc).__name__}: {exc}")
        return original(self, gm, *args, **kwargs)

    OutputGraph.call_user_compiler = call_user_compiler

    def undo() -> None:
        OutputGraph.call_user_compiler = original

    return undo


def _event(gm: Any, local_scope: dict[str, Any]) -> dict[str, Any]:
    from torch import nn
    from torch._guards import CompileContext

    # Dynamo leaves the compiled module itself (``self`` of the traced forward) out of ``nn_module_stack``
    root = local_scope.get("self")
    root_class = _class_name(type(root)) if isinstance(root, nn.Module) else None
    nodes: dict[str, dict[str, Any]] = {}
    for node in gm.graph.nodes:
        if node.op not in ("call_function", "call_method", "call_module"):
            continue
        entries = list((node.meta.get("nn_module_stack") or {}).values())
        nodes[node.name] = {"stack": [[module_path(str(path)), _class_name(cls)] for path, cls in entries],
                            "forward": list(_forward_location(entries[-1][1])) if entries else [None, None]}
    compile_id = CompileContext.current_compile_id()
    return {"type": "module_stacks", "compile_id": str(compile_id) if compile_id is not None else None,
            "root_class": root_class, "nodes": nodes}


def module_path(path: str) -> str:
    """Dynamo's source string of a submodule -> its fully qualified name under the compiled module ('' = the root)."""
    path = ROOT.sub("", path, count=1)
    return re.sub(r"\[['\"]?([^'\"\]]+)['\"]?\]", r".\1", path).strip(".")


def _class_name(cls: Any) -> str:
    if isinstance(cls, str):
        return cls.rsplit(".", 1)[-1]
    return getattr(cls, "__qualname__", None) or getattr(cls, "__name__", None) or str(cls)


@lru_cache(maxsize=1024)
def _forward_location(cls: Any) -> tuple[str | None, int | None]:
    """Where the module's ``forward`` is defined: the innermost frame a kernel of a leaf layer has."""
    try:
        code = inspect.unwrap(cls.forward).__code__
        return code.co_filename, code.co_firstlineno
    except (AttributeError, TypeError):
        return None, None
