"""Name the forward module of every node Inductor compiles, forward and backward, so backward kernels are attributed.

AOTAutograd copies each forward node's ``nn_module_stack`` onto the backward nodes of the same autograd sequence
number (``fwd_nn_module_stack``, ``copy_fwd_metadata_to_bw_nodes``), but no structured-trace artifact prints it, and a
backward compiled lazily (at the first ``.backward()``) gets an empty provenance node mapping. Inductor's
``_compile_fx_inner`` receives every AOT graph (forward, backward, inference) and, on an FX-graph-cache miss, runs the
post-grad passes on it in place: read once it returns, the graph's node names are those of the post-grad graph and
of the kernels' provenance. One ``aot_node_stacks`` event per Inductor compile: node name -> (module stack, seq_nr),
stacks interned; and the kernel -> post-grad nodes map for the debug handles this compile assigned (Inductor's
global for it is not reset between lazily compiled backward graphs, so it is read by handle range).

A cache hit compiles nothing: an FX-graph-cache hit hands ``_compile_fx_inner`` the graph before its post-grad
passes, and an AOTAutograd-cache hit skips it altogether. So each real compile also leaves its event beside Inductor's
cache (``<cache dir>/tdiag-node-stacks/<FX graph key>.json``), and a graph loaded from a cache
(``CompiledFxGraph.post_compile``, which runs on every path) replays it into the record under the current compile id.

Runs in Inductor's compile, after Dynamo has finished tracing: never inside a frame Dynamo traces.
"""

from __future__ import annotations

import json
import os
import threading
from typing import Any

from tdiag.compiler.failures import missing, report
from tdiag.compiler.module_stacks import module_path

HANDLE_SEP = ":"
SIDECAR_DIR = "tdiag-node-stacks"


def install(session: Any):
    """Wrap Inductor once a program imports it: a program that only uses Dynamo with ``eager``/``aot_eager`` never
    loads ``torch._inductor.compile_fx`` (its import runs ``torch.utils.mkldnn``'s deprecated ``script_method``: 14
    DeprecationWarnings in a pytest summary that python's test run does not have)."""
    from tdiag.tracer import import_watch

    undos: list[Any] = []

    def attach() -> None:
        try:
            undo = _install_now(session)
        except Exception as exc:  # runs inside the program's import of Inductor: never fail that import
            report(session, "AOT node stacks hook", exc)
            return
        if undo is not None:
            undos.append(undo)

    cancel = import_watch.after_import("torch._inductor.compile_fx", attach, lambda: missing(
        session, "torch._inductor.compile_fx (its import could not be followed)",
        "backward kernels are not named after modules"))

    def undo() -> None:
        cancel()
        while undos:
            undos.pop()()

    return undo


def _install_now(session: Any):
    import torch._inductor.compile_fx as compile_fx

    original = getattr(compile_fx, "_compile_fx_inner", None)
    if original is None:
        missing(session, "torch._inductor.compile_fx._compile_fx_inner", "backward kernels are not named after modules")
        return None
    state = threading.local()  # inside _compile_fx_inner: its own event is written when it returns
    replayed: set[tuple[Any, str]] = set()

    def _compile_fx_inner(gm, *args, **kwargs):
        first = _handle_counter()
        state.depth = getattr(state, "depth", 0) + 1
        try:
            result = original(gm, *args, **kwargs)
        finally:
            state.depth -= 1
        try:
            event = _event(gm, bool(kwargs.get("is_backward")), bool(kwargs.get("is_inference")), first)
            # the key Inductor names each call of this graph with in a profile (## Call CompiledFxGraph KEY ##)
            key = getattr(result, "_fx_graph_cache_key", None)
            event["fx_key"] = key if isinstance(key, str) else None
            if event["fx_key"]:
                if event["kernels"]:
                    _save(event)
                else:  # an FX graph cache hit: the post-grad names and the kernel map are those of the real compile
                    event = _load(event["fx_key"], event) or event
                replayed.add((event["compile_id"], event["fx_key"]))
            session.write(event)
        except Exception as exc:  # diagnostics must never break the compile they watch
            session.note(f"AOT node stacks not recorded: {type(exc).__name__}: {exc}")
        return result

    compile_fx._compile_fx_inner = _compile_fx_inner
    undo_post = _replay_on_cache_load(session, state, replayed)
    if undo_post is None:
        missing(session, "torch._inductor.output_code.CompiledFxGraph.post_compile",
                "kernels of AOTAutograd-cache hits are not named after modules")

    def undo() -> None:
        if compile_fx._compile_fx_inner is _compile_fx_inner:
            compile_fx._compile_fx_inner = original
        if undo_post is not None:
            undo_post()

    return undo


def _replay_on_cache_load(session: Any, state: threading.local, replayed: set[tuple[Any, str]]):
    """An AOTAutograd cache hit loads each graph without compiling it: replay the event its real compile left."""
    try:
        from torch._inductor.output_code import CompiledFxGraph
    except ImportError:
        return None
    original = getattr(CompiledFxGraph, "post_compile", None)
    if original is None:
        return None

    def post_compile(self, *args, **kwargs):
        out = original(self, *args, **kwargs)
        if getattr(state, "depth", 0):
            return out
        try:
            key = getattr(self, "_fx_graph_cache_key", None)
            compile_id = _compile_id()
            if isinstance(key, str) and (compile_id, key) not in replayed:
                replayed.add((compile_id, key))
                event = _load(key, {"compile_id": compile_id})
                if event is not None:
                    session.write(event)
        except Exception as exc:
            session.note(f"AOT node stacks not replayed from the cache: {type(exc).__name__}: {exc}")
        return out

    CompiledFxGraph.post_compile = post_compile

    def undo() -> None:
        if CompiledFxGraph.post_compile is post_compile:
            CompiledFxGraph.post_compile = original

    return undo


def _sidecar(key: str) -> str | None:
    try:
        from torch._inductor.runtime.cache_dir_utils import cache_dir
    except ImportError:
        return None
    if not key.replace("_", "").isalnum():
        return None
    return os.path.join(cache_dir(), SIDECAR_DIR, key + ".json")


def _save(event: dict[str, Any]) -> None:
    path = _sidecar(event["fx_key"])
    if path is None:
        return
    os.makedirs(os.path.dirname(path), exist_ok=True)
    tmp = f"{path}.{os.getpid()}.tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump({k: v for k, v in event.items() if k != "compile_id"}, fh)
    os.replace(tmp, path)  # atomic: a concurrent reader sees the old file or the new one


def _load(key: str, base: dict[str, Any]) -> dict[str, Any] | None:
    path = _sidecar(key)
    if path is None or not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as fh:
        saved = json.load(fh)
    if not isinstance(saved, dict) or saved.get("type") != "aot_node_stacks":
        return None
    return {**saved, "compile_id": base.get("compile_id"), "fx_key": key, "from_cache": True}


def _compile_id() -> str | None:
    from torch._guards import CompileContext

    compile_id = CompileContext.current_compile_id()
    return str(compile_id) if compile_id is not None else None


def _handle_counter() -> int | None:
    try:
        import torch._inductor.debug as debug
    except ImportError:
        return None
    value = getattr(debug, "_inductor_kernel_provenance_debug_handle", None)
    return value if isinstance(value, int) else None


def _event(gm: Any, is_backward: bool, is_inference: bool, first_handle: int | None) -> dict[str, Any]:
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
    role = "backward" if is_backward else "inference" if is_inference else "forward"
    return {"type": "aot_node_stacks", "compile_id": _compile_id(),
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
