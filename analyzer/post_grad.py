"""Nodes of Inductor's post-grad graph (``inductor_post_grad_graph``) with the user line each came from.

Used where the provenance node mapping is empty (a backward compiled lazily, at the first ``.backward()``).
"""

from __future__ import annotations

import re

from tdiag.lazy_regex import lazy_regex
from tdiag.lean_dataclass import lean_dataclass

FILE_COMMENT = lazy_regex(r"^\s*# File: (.+?):(\d+) in (\S+?), code: (.*)$")
NODE = lazy_regex(r"^\s+(\w+)(?:: \"[^\"]*\")? = torch\.ops\.([\w.]+)\(")


@lean_dataclass
class PostGradNode:
    """One node of a post-grad graph as Inductor printed it: name, op, arguments."""

    name: str
    op: str  # short aten name: "mul", "_softmax_backward_data"
    path: str | None
    line: int | None
    code: str | None


def parse(text: str) -> list[PostGradNode]:
    nodes = []
    where: tuple[str, int, str] | None = None
    for raw in text.splitlines():
        m = FILE_COMMENT.match(raw)
        if m:
            where = (m.group(1), int(m.group(2)), m.group(4).strip())
            continue
        if not raw.strip():
            where = None
            continue
        m = NODE.match(raw)
        if m:
            target = m.group(2).split(".")
            op = target[1] if len(target) >= 2 else target[0]
            nodes.append(PostGradNode(m.group(1), op, *(where if where else (None, None, None))))
    return nodes


SIGNATURE = lazy_regex(r"def forward\((.*?)\):\s*\n", re.S)


def signature(text: str) -> str:
    m = SIGNATURE.search(text)
    return m.group(1) if m else ""


def is_backward(text: str) -> bool:
    return "tangents_" in signature(text)


def nodes_for_kernel(kernel_name: str, nodes: list[PostGradNode], lines: set[tuple[str, int]] | None) -> list[PostGradNode]:
    """Nodes whose aten op appears in a generated kernel's name (Inductor names fused kernels after their ops),
    narrowed to the kernel's user lines when those are known."""
    fused = "_" + kernel_name.split("_fused_", 1)[-1].rsplit("_", 1)[0] + "_"
    picked = [n for n in nodes if f"_{n.op}_" in fused]
    if lines:
        narrowed = [n for n in picked if n.path is not None and (n.path, n.line) in lines]
        picked = narrowed or picked
    return picked
