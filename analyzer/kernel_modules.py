"""Name each kernel after the ``nn.Module`` it computes: kernel -> post-grad nodes (provenance ``*CodeToPost``) ->
Dynamo graph nodes (``postToPre``) -> the module stack recorded for those nodes (``module_stacks`` events).

A kernel fused across several modules is named after their closest common ancestor. Works from a record alone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from tdiag.analyzer.model import Kernel, SourceRef
from tdiag.analyzer.paths import PathMapper


@dataclass
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


def _node(info: Any) -> dict[str, Any]:
    info = info if isinstance(info, dict) else {}
    stack = info.get("stack") if isinstance(info.get("stack"), list) else []
    stack = [[e[0], e[1]] for e in stack if isinstance(e, list) and len(e) == 2 and all(isinstance(x, str) for x in e)]
    where = info.get("forward")
    ok = isinstance(where, list) and len(where) == 2 and isinstance(where[0], str) and type(where[1]) is int
    return {"stack": stack, "forward": where if ok else [None, None]}


def attribute(kernel: Kernel, modules: GraphModules | None, post_to_pre: dict[str, list[str]], paths: PathMapper) -> None:
    """Set ``kernel.module``/``module_class`` and, where no stack trace gave one, ``kernel.frame``."""
    if modules is None or not kernel.fused_nodes:
        return
    pre = [p for n in kernel.fused_nodes for p in post_to_pre.get(n, [n])]  # unmapped: the name may already be pre-grad
    stacks = [_rooted(modules.nodes[p].get("stack") or [], modules.root_class) for p in dict.fromkeys(pre)
              if p in modules.nodes]
    stacks = [s for s in stacks if s]
    if not stacks:
        return
    common = _common_prefix(stacks)
    if common:
        kernel.module, kernel.module_class = common[-1][0], common[-1][1]
    else:  # nodes of the compiled function itself, outside any module
        kernel.module, kernel.module_class = None, None
    innermost = {tuple(s[-1]) for s in stacks}
    if innermost == {("", modules.root_class)}:  # the compiled module's own code: its lines are the user's
        return
    if kernel.frame is None and len(innermost) == 1:  # one layer (no stack trace: e.g. a child of nn.Sequential)
        where = modules.nodes[next(p for p in pre if p in modules.nodes)].get("forward")
        if where and where[0] and where[1]:
            kernel.frame = SourceRef(paths.display(where[0]), int(where[1]), f"{stacks[0][-1][1]}.forward")


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


def module_label(kernel: Kernel) -> str | None:
    """``encoder.layers.3.mlp (MLP)``; the compiled module itself shows as its class alone."""
    if kernel.module_class is None:
        return None
    return f"{kernel.module} ({kernel.module_class})" if kernel.module else kernel.module_class
