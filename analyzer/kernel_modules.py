"""Name each kernel after the ``nn.Module`` it computes: kernel -> post-grad nodes (provenance ``*CodeToPost``, or
the capture's own map for a backward compiled lazily) -> the module stack of each node. Stacks come from the AOT
graphs Inductor compiled (``aot_node_stacks``: backward nodes carry the forward module they differentiate), else from
Dynamo's graph through ``postToPre`` (``module_stacks``).

``Kernel.modules`` lists every module whose nodes the kernel computes, in forward order; ``module``/``module_class``
is their closest common ancestor. Works from a record alone.
"""

from __future__ import annotations

from typing import Any

from tdiag.analyzer.model import Kernel, KernelModule, SourceRef
from tdiag.analyzer.paths import PathMapper

from tdiag.lean_dataclass import lean_dataclass


@lean_dataclass
class GraphModules:
    """One Dynamo graph's node -> module stack ([[path, class], ...] outermost first, innermost forward file/line)."""

    root_class: str | None
    nodes: dict[str, dict[str, Any]]


def by_compile_id(other_events: list[dict[str, Any]]) -> dict[tuple[Any, str], GraphModules]:
    """``module_stacks`` events by (rank, compile id); malformed parts of a damaged record are skipped."""
    out: dict[tuple[Any, str], GraphModules] = {}
    for ev in other_events:
        if ev.get("type") != "module_stacks" or not isinstance(ev.get("compile_id"), str):
            continue
        nodes = ev.get("nodes") if isinstance(ev.get("nodes"), dict) else {}
        rank = ev.get("rank") if isinstance(ev.get("rank"), int) else None
        root = ev.get("root_class") if isinstance(ev.get("root_class"), str) else None
        out[(rank, ev["compile_id"])] = GraphModules(root, {name: _node(info) for name, info in nodes.items()})
    return out


@lean_dataclass
class AotStacks:
    """One Inductor compile (forward, backward or inference graph): post-grad node -> (module stack, seq_nr), and the
    kernel handle -> post-grad nodes map the capture read for it."""

    nodes: dict[str, tuple[list[list[str]], int | None]]
    kernels: dict[str, list[str]]
    fx_key: str | None = None


def aot_by_graph(other_events: list[dict[str, Any]]) -> dict[tuple[Any, str, str], AotStacks]:
    """``aot_node_stacks`` events by (rank, compile id, role); a later compile of the same graph replaces one before."""
    out: dict[tuple[Any, str, str], AotStacks] = {}
    for ev in other_events:
        if ev.get("type") != "aot_node_stacks" or not isinstance(ev.get("compile_id"), str):
            continue
        stacks = [_node({"stack": s})["stack"] for s in ev.get("stacks") or []]
        nodes: dict[str, tuple[list[list[str]], int | None]] = {}
        for name, value in (ev.get("nodes") or {}).items():
            if isinstance(value, list) and len(value) == 2 and type(value[0]) is int and 0 <= value[0] < len(stacks):
                nodes[name] = (stacks[value[0]], value[1] if type(value[1]) is int else None)
        kernels = {k: [n for n in v if isinstance(n, str)] for k, v in (ev.get("kernels") or {}).items()
                   if isinstance(v, list)}
        rank = ev.get("rank") if isinstance(ev.get("rank"), int) else None
        fx_key = ev.get("fx_key") if isinstance(ev.get("fx_key"), str) else None
        out[(rank, ev["compile_id"], str(ev.get("graph") or "forward"))] = AotStacks(nodes, kernels, fx_key)
    return out


def _node(info: Any) -> dict[str, Any]:
    info = info if isinstance(info, dict) else {}
    stack = info.get("stack") if isinstance(info.get("stack"), list) else []
    stack = [[e[0], e[1]] for e in stack if isinstance(e, list) and len(e) == 2 and all(isinstance(x, str) for x in e)]
    where = info.get("forward")
    ok = isinstance(where, list) and len(where) == 2 and isinstance(where[0], str) and type(where[1]) is int
    return {"stack": stack, "forward": where if ok else [None, None]}


def attribute(kernel: Kernel, modules: GraphModules | None, post_to_pre: dict[str, list[str]], paths: PathMapper,
              aot: AotStacks | None = None) -> None:
    """Set ``kernel.modules``, ``module``/``module_class`` and, where no stack trace gave one, ``kernel.frame``."""
    if not kernel.fused_nodes or (modules is None and aot is None):
        return
    root_class = compiled_root_class(modules, [aot] if aot is not None else [])
    stacks: list[list[list[Any]]] = []
    order: list[int | None] = []
    forward_of: list[list[Any] | None] = []
    own_code = False  # a node outside any submodule: the compiled module's (or function's) own code
    for name in dict.fromkeys(kernel.fused_nodes):
        found = aot.nodes.get(name) if aot is not None else None
        if found is not None:
            if found[0]:
                stacks.append(_rooted(found[0], root_class))
                order.append(found[1])
                forward_of.append(None)
            else:
                own_code = True
            continue
        if modules is None:
            continue
        # Dynamo's graph has pre-grad names: a backward node's name matches one only by accident
        for pre in post_to_pre.get(name) or ([] if kernel.graph == "backward" else [name]):
            info = modules.nodes.get(pre)
            if info is None:
                continue
            if info.get("stack"):
                stacks.append(_rooted(info["stack"], root_class))
                order.append(None)
                forward_of.append(info.get("forward"))
            else:
                own_code = True
    if not stacks and own_code and root_class:
        stacks, order, forward_of = [[["", root_class]]], [None], [None]
    if not stacks:
        if root_class and aot is not None:  # only graph inputs (a copy or layout kernel): the compiled module's own
            kernel.modules = [KernelModule("", root_class)]
            kernel.module, kernel.module_class = "", root_class
        return
    kernel.modules = _in_forward_order(stacks, order)
    common = _common_prefix(stacks)
    if common:
        kernel.module, kernel.module_class = common[-1][0], common[-1][1]
    else:  # nodes of the compiled function itself, outside any module
        kernel.module, kernel.module_class = None, None
    innermost = {tuple(s[-1]) for s in stacks}
    if innermost == {("", root_class)}:  # the compiled module's own code: its lines are the user's
        return
    if kernel.frame is None and len(innermost) == 1:  # one layer (no stack trace: e.g. a child of nn.Sequential)
        where = next((w for w in forward_of if w), None) or _forward_of(modules, stacks[0][-1])
        if where and where[0] and where[1]:
            kernel.frame = SourceRef(paths.display(where[0]), int(where[1]), f"{stacks[0][-1][1]}.forward")


def _forward_of(modules: GraphModules | None, entry: list[Any]) -> list[Any] | None:
    """Where the module's ``forward`` is defined, from Dynamo's node of the same module (a backward node has none)."""
    for info in (modules.nodes.values() if modules is not None else []):
        stack = info.get("stack") or []
        if stack and list(stack[-1]) == list(entry):
            return info.get("forward")
    return None


def _in_forward_order(stacks: list[list[list[Any]]], order: list[int | None]) -> list[KernelModule]:
    """Each innermost module once, ordered by the first autograd sequence number of its nodes (forward order, also
    for a backward kernel), then by first appearance."""
    first: dict[tuple[str, str], tuple[float, int]] = {}
    for i, (stack, seq) in enumerate(zip(stacks, order)):
        key = (stack[-1][0], stack[-1][1])
        rank = (float(seq) if seq is not None else float("inf"), i)
        if key not in first or rank < first[key]:
            first[key] = rank
    return [KernelModule(path, cls) for (path, cls), _ in sorted(first.items(), key=lambda kv: kv[1])]


def _rooted(stack: list[list[Any]], root_class: str | None) -> list[list[Any]]:
    """The compiled module as the outermost entry (path ''), whether or not Dynamo listed it."""
    if root_class is None or (stack and stack[0][0] == ""):
        return stack
    return [["", root_class], *stack]


def _common_prefix(stacks: list[list[list[Any]]]) -> list[list[Any]]:
    common = list(stacks[0])
    for stack in stacks[1:]:
        n = 0
        while n < min(len(common), len(stack)) and list(common[n]) == list(stack[n]):
            n += 1
        common = common[:n]
    return common


def resolve_lines(analysis_graphs: list[Any], sources: dict[str, str], roots: dict[Any, str | None]) -> None:
    """``KernelModule.built_at``: the user's line that built each module (``module_lines``), per compiled root class."""
    from tdiag.analyzer.module_lines import SourceIndex

    index: SourceIndex | None = None
    for graph in analysis_graphs:
        for kernel in graph.kernels:
            for module in kernel.modules:
                if index is None:
                    index = SourceIndex(sources)
                root = roots.get(graph.key) or _root_of(kernel)
                found = index.resolve(module.path, root)
                if found is not None:
                    module.built_at, module.built_by = found.ref, found.how


def _root_of(kernel: Kernel) -> str | None:
    return kernel.module_class if kernel.module == "" else None


def compiled_root_class(modules: GraphModules | None, aots: list[AotStacks]) -> str | None:
    """The compiled module's class: Dynamo's ``self``, else the outermost ('' path) entry of any node's stack."""
    if modules is not None and modules.root_class:
        return modules.root_class
    for stacks in [[info.get("stack") for info in modules.nodes.values()] if modules else []] + [
            [stack for stack, _ in aot.nodes.values()] for aot in aots]:
        for stack in stacks:
            if stack and stack[0][0] == "":
                return stack[0][1]
    return None


def module_label(kernel: Kernel) -> str | None:
    """``encoder.layers.3.mlp (MLP)``; the compiled module itself shows as its class alone."""
    if len(kernel.modules) > 1 or (kernel.modules and kernel.modules[0].built_at is not None):
        # every module the kernel computes, each with the user's line that built it (beside the library frame)
        return ", ".join(f"{m.path} ({m.cls})" + (f" @ {m.built_at.path}:{m.built_at.line}" if m.built_at else "")
                         if m.path else m.cls for m in kernel.modules)
    if kernel.module_class is None:
        return None
    return f"{kernel.module} ({kernel.module_class})" if kernel.module else kernel.module_class
