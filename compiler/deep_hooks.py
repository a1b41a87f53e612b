"""Deep mode: hooks that cost compile caches or lean on private Inductor internals, so they are opt-in.

- ``_post_fusion_custom_pass`` sees the scheduler nodes after fusion: the exact IR class of every buffer
  (FallbackKernel, ExternKernel, TemplateBuffer, ComputedBuffer + Reduction). Setting it makes the FX-graph and
  AOTAutograd caches bypass, so every graph recompiles.
- ``AsyncCompile.cpp_pybinding`` is wrapped to time each C++ kernel until its compiled module is ready, keyed by a
  whitespace-insensitive hash of its source (the analyzer finds the same source in the output code).
"""

from __future__ import annotations

import hashlib
import time
from typing import Any

from tdiag.compiler.failures import missing


def source_key(source: str) -> str:
    """Whitespace-insensitive: the wrapper re-indents the kernel source it embeds in the output code."""
    return hashlib.sha1("".join(source.split()).encode("utf-8", "surrogatepass")).hexdigest()[:20]


# -- fusion groups ---------------------------------------------------------------------------------------------
def install_fusion_pass(session: Any):
    import torch._inductor.config as inductor_config

    if not hasattr(inductor_config, "_post_fusion_custom_pass"):
        missing(session, "torch._inductor.config._post_fusion_custom_pass", "--deep records no fusion groups "
                "(no exact IR classes)")
        return None
    previous = inductor_config._post_fusion_custom_pass

    def post_fusion(nodes):
        try:
            session.write({"type": "fusion_groups", **_fusion_groups(nodes)})
        except Exception as exc:
            session.note(f"deep mode: fusion groups not recorded: {type(exc).__name__}: {exc}")
        return previous(nodes) if callable(previous) else nodes

    inductor_config._post_fusion_custom_pass = post_fusion

    def undo() -> None:
        inductor_config._post_fusion_custom_pass = previous

    return undo


def _fusion_groups(nodes) -> dict[str, Any]:
    from torch._guards import CompileContext
    from torch._inductor.virtualized import V

    graph = V.graph
    role = "backward" if getattr(graph, "is_backward", False) else ("inference" if getattr(graph, "is_inference", False) else "forward")
    groups = []
    for scheduler_node in nodes:
        members = []
        origins: set[str] = set()
        for member in scheduler_node.get_nodes():
            ir_node = getattr(member, "node", None)
            members.append({"name": member.get_name(), "ir": ir_class(ir_node)})
            origins.update(o.name for o in getattr(ir_node, "origins", None) or ())
        groups.append({"group": scheduler_node.get_name(), "kind": type(scheduler_node).__name__, "members": members,
                       "origins": sorted(origins)})
    compile_id = CompileContext.current_compile_id()
    return {"compile_id": str(compile_id) if compile_id is not None else None, "graph": role, "groups": groups}


def ir_class(node: Any) -> str:
    from torch._inductor import ir

    if node is None:
        return "none"
    if isinstance(node, ir.MultiOutput):
        return "multi_output"
    if isinstance(node, ir.FallbackKernel):
        return "fallback:" + str(getattr(node, "python_kernel_name", "") or "")
    if isinstance(node, ir.TemplateBuffer):
        return "template"
    if isinstance(node, ir.ExternKernel):
        return "extern:" + str(getattr(node, "python_kernel_name", "") or "")
    if isinstance(node, ir.ComputedBuffer):
        return "reduction" if isinstance(getattr(node, "data", None), ir.Reduction) else "pointwise"
    return type(node).__name__


# -- C++ compile time --------------------------------------------------------------------------------------------
def install_cpp_compile_timer(session: Any):
    from torch._inductor.async_compile import AsyncCompile

    original = getattr(AsyncCompile, "cpp_pybinding", None)  # private: feature-detected, never assumed
    if not callable(original):
        missing(session, "torch._inductor.async_compile.AsyncCompile.cpp_pybinding",
                "--deep records no per-kernel C++ compile time")
        return None
    try:
        from torch._inductor.codecache import LambdaFuture
    except ImportError:  # no deferred results in this torch: every result is ready when returned
        LambdaFuture = ()  # noqa: N806 -- isinstance(x, ()) is always False

    def timed_cpp_pybinding(self, argtypes, source_code):
        started = time.perf_counter()
        result = original(self, argtypes, source_code)
        key = source_key(source_code)

        def report() -> None:
            session.write({"type": "kernel_compile", "source_key": key, "seconds": round(time.perf_counter() - started, 6)})

        if isinstance(result, LambdaFuture):
            get_result = result.result_fn

            def timed_result():
                value = get_result()
                report()
                return value

            result.result_fn = timed_result
        else:
            report()
        return result

    AsyncCompile.cpp_pybinding = timed_cpp_pybinding

    def undo() -> None:
        AsyncCompile.cpp_pybinding = original

    return undo
