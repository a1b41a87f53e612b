"""The user lines Dynamo traced: each compiled frame's first line and the lines its graphs' nodes came from (the
readable graph code's ``# File: path:line in fn`` comments), functions Dynamo inlined included, keyed by the recorded
source they are in. Rules that read the user's code around what was compiled (EGR003's objects, a crash's `try`)
start from them."""

from __future__ import annotations

import re

# a graph's readable code names the user line each node came from: "# File: /path/train.py:24 in forward, code: ..."
NODE_SOURCE = re.compile(r"# File: (.+?):(\d+) in ")


def traced_lines(analysis) -> dict[str, set[int]]:
    """Recorded source path -> the lines of it Dynamo traced."""
    traced: dict[str, set[int]] = {}
    for frame in analysis.frames:
        traced.setdefault(frame.path, set()).add(frame.line)
    recorded: dict[str, str | None] = {}  # the graph code's absolute path -> the recorded source it is, once each
    for graph in analysis.graphs:
        code = analysis.code.get(graph.graph_code_ref) if graph.graph_code_ref else None
        for where, line in set(NODE_SOURCE.findall(code if isinstance(code, str) else "")):
            if where not in recorded:
                recorded[where] = next((p for p in analysis.sources if where == p or where.endswith("/" + p)), None)
            if recorded[where] is not None:
                traced.setdefault(recorded[where], set()).add(int(line))
    return traced
