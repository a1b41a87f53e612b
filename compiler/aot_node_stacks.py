"""Name the forward module of every node Inductor compiles, forward and backward, so backward kernels are attributed.

AOTAutograd copies each forward node's ``nn_module_stack`` onto the backward nodes of the same autograd sequence
number (``fwd_nn_module_stack``, ``copy_fwd_metadata_to_bw_nodes``), but no structured-trace artifact prints it, and a
backward compiled lazily (at the first ``.backward()``) gets an empty provenance node mapping. Inductor's
``_compile_fx_inner`` receives every AOT graph (forward, backward, inference) and, on an FX-graph-cache miss, runs the
post-grad passes on it in place: read once it returns, the graph's node names are those of the post-grad graph and
of the kernels' provenance. One ``aot_node_stacks`` event per Inductor compile: node name -> (module stack, seq_nr),
stacks interned; and the kernel -> post-grad nodes map for the debug handles this compile assigned (Inductor's
global for it is not reset between lazily compiled backward graphs, so it is read by handle range).

Runs in Inductor's compile, after Dynamo has finished tracing: never inside a frame Dynamo traces.
"""

from __future__ import annotations

from typing import Any

from tdiag.compiler.module_stacks import module_path

HANDLE_SEP = ":"


def install(session: Any):
    import torch._inductor.compile_fx as compile_fx

    original = getattr(compile_fx, "_compile_fx_inner", None)
    if original is None:
        session.note("this torch has no Inductor _compile_fx_inner: backward kernels are not named after modules")
        return None

    def _compile_fx_inner(gm, *args, **kwargs):
        first = _handle_counter()
        result = original(gm, *args, **kwargs)
        try:
            event = _event(gm, bool(kwargs.get("is_backward")), bool(kwargs.get("is_inference")), first)
            # the key Inductor names each call of this graph with in a profile (## Call CompiledFxGraph KEY ##)
            key = getattr(result, "_fx_graph_cache_key", None)
            event["fx_key"] = key if isinstance(key, str) else None
            session.write(event)
        except Exception as exc:  # diagnostics must never break the compile they watch
            session.note(f"AOT node stacks not recorded: {type(exc).__name__}: {exc}")
        return result

    compile_fx._compile_fx_inner = _compile_fx_inner

    def undo() -> None:
        if compile_fx._compile_fx_inner is _compile_fx_inner:
            compile_fx._compile_fx_inner = original

    return undo


def _handle_counter() -> int | None:
    try:
        import torch._inductor.debug as debug
    except ImportError:
        return None
    value = getattr(debug, "_inductor_kernel_provenance_debug_handle", None)
    return value if isinstance(value, int) else None


def _event(gm: Any, is_backward: bool, is_inference: bool, first_handle: int | None) -> dict[str, Any]:
    from torch._guards import CompileContext

    stacks: list[list[list[str]]] = []
    index: dict[tuple[tuple[str, str], ...], int] = {}
    nodes: dict[str, list[Any]] = {}
    for node in gm.graph.nodes:
        if node.op not in ("call_function", "call_method", "call_module"):
            continue
        meta = node.meta
        raw = meta.get("nn_module_stack") or meta.get("fwd_nn_module_stack") or {}
        stack = tuple((module_path(str(path)), _class_name(cls)) for path, cls in _entries(raw))
        if stack not in index:
            index[stack] = len(stacks)
            stacks.append([list(e) for e in stack])
        seq_nr = meta.get("seq_nr")
        nodes[node.name] = [index[stack], seq_nr if isinstance(seq_nr, int) else None]
    compile_id = CompileContext.current_compile_id()
    role = "backward" if is_backward else "inference" if is_inference else "forward"
    return {"type": "aot_node_stacks", "compile_id": str(compile_id) if compile_id is not None else None,
            "graph": role, "stacks": stacks, "nodes": nodes, "kernels": _kernel_nodes(first_handle)}


def _entries(raw: Any) -> list[tuple[Any, Any]]:
    if isinstance(raw, dict):
        return [v for v in raw.values() if isinstance(v, tuple) and len(v) == 2]
    return []


def _kernel_nodes(first_handle: int | None) -> dict[str, list[str]]:
    """``kernel:handle`` -> post-grad node names for the handles assigned since ``first_handle`` (empty on a cache hit)."""
    last = _handle_counter()
    if first_handle is None or last is None or last <= first_handle:
        return {}
    import torch._inductor.debug as debug

    info = getattr(debug, "_inductor_triton_kernel_to_post_grad_node_info", None) or {}
    out = {}
    for key, names in list(info.items()):
        handle = str(key).rpartition(HANDLE_SEP)[2]
        if handle.isdigit() and first_handle < int(handle) <= last and isinstance(names, (list, tuple)):
            out[str(key)] = [str(n) for n in names]
    return out


def _class_name(cls: Any) -> str:
    if isinstance(cls, str):
        return cls.rsplit(".", 1)[-1]
    return getattr(cls, "__qualname__", None) or getattr(cls, "__name__", None) or str(cls)
