"""Patch kind: ``torch._inductor.config.triton.cudagraph_skip_dynamic_graphs = True`` (CGR002 on a dynamic graph).

A graph compiled with dynamic shapes is recorded as a CUDA graph once per distinct size it meets (cudagraph trees
key recordings by the symbolic sizes' values), each recording an eager run plus a capture. Where the sizes keep
changing and cannot be padded to a few, torch's switch runs dynamic graphs without CUDA graphs and keeps them for
the static ones (torch/_inductor/config.py). The line goes after the file's imports; verification keeps it only
when the step got faster. A static graph recompiled per size is not helped by it: padding is the fix there.
"""

from __future__ import annotations

import libcst as cst
from tdiag.analyzer.model import Suggestion
from tdiag.analyzer.suggestions.helpers.context import (
    NoPatch,
    SuggestionContext,
    patch_for,
    torch_alias,
    with_torch_import,
)

KIND = "cudagraph-skip-dynamic-graphs"
SETTING = "_inductor.config.triton.cudagraph_skip_dynamic_graphs"
WHY = (
    "Each new size of a dynamic graph records a new CUDA graph (an eager run and a capture, and its own memory). With "
    "cudagraph_skip_dynamic_graphs, Inductor runs graphs with dynamic shapes without CUDA graphs and keeps them for "
    "the static ones; padding the inputs to a few sizes keeps CUDA graphs for all of them and is better where it is "
    "possible."
)


def build(ctx: SuggestionContext, path: str) -> Suggestion:
    tree = ctx.tree(path)
    torch = torch_alias(tree)
    line = cst.parse_statement(f"{torch}.{SETTING} = True\n", config=tree.module.config_for_parsing)
    if any(SETTING in tree.module.code_for_node(s) for s in tree.module.body):
        raise NoPatch("the file already sets cudagraph_skip_dynamic_graphs")
    body = list(tree.module.body)
    imports = [i for i, s in enumerate(body) if isinstance(s, cst.SimpleStatementLine)
               and isinstance(s.body[0], (cst.Import, cst.ImportFrom))]
    at = imports[-1] + 1 if imports else 0
    module = with_torch_import(tree, tree.module.with_changes(body=[*body[:at], line, *body[at:]]))
    return Suggestion(
        title="Run dynamic-shape graphs without CUDA graphs (cudagraph_skip_dynamic_graphs)",
        why=WHY,
        patch=patch_for(tree, module),
        alternatives=["pad or bucket the inputs to a few fixed sizes (drop_last=True for the loader), so each size "
                      "is recorded once and replayed"],
    )
