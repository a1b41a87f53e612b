"""Patch kind ``mode="reduce-overhead"`` on the torch.compile of the measured step: CUDA graphs.

Inductor records the compiled graphs' kernels into CUDA graphs once (per input shape) and replays each with one
launch, so a launch-bound step (RUN002: the GPU idle most of it) stops paying a launch per kernel. Which compile to
patch: the one that compiles the step's function (a decorator on it, ``f = torch.compile(f)``, ``torch.compile(model)``
for a ``forward``), else the only torch.compile of the file. A compile that already passes ``mode=`` or ``options=``
is the user's choice and is left alone. Verification refuses the patch when the program breaks under CUDA graphs
(an output read after the next replay overwrote it: torch's "accessing tensor output of CUDAGraphs that has been
overwritten by a subsequent run") or gets slower.
"""

from __future__ import annotations

import libcst as cst
from tdiag.analyzer.model import Suggestion
from tdiag.analyzer.suggestions.helpers import lightning_hook
from tdiag.analyzer.suggestions.helpers.call_keyword import keyword_value, with_keyword
from tdiag.analyzer.suggestions.helpers.context import (
    NoPatch,
    SuggestionContext,
    patch_for,
    replace_nodes,
    with_torch_import,
)
from tdiag.analyzer.suggestions.helpers.syntax import SourceTree

KIND = "reduce-overhead"
MODE = "reduce-overhead"
WHY = (
    "With mode=\"reduce-overhead\" Inductor records the step's kernels into CUDA graphs and replays them with one "
    "launch, so the host no longer launches every kernel of every step. Inputs should keep a few shapes (each new "
    "shape records again), and outputs kept across steps must be cloned or read before the next call."
)


def build(ctx: SuggestionContext, path: str, function: str | None, line: int | None) -> Suggestion:
    tree = ctx.tree(path)
    node = _the_compile(tree, function, line)
    call = node.decorator if isinstance(node, cst.Decorator) else node
    if not isinstance(call, cst.Call):  # a bare @torch.compile
        new: cst.CSTNode = node.with_changes(decorator=cst.Call(func=node.decorator, args=[_mode_arg()]))
    else:
        for keyword in ("mode", "options"):
            if keyword_value(call, keyword) is not None:
                raise NoPatch(f"the torch.compile call already passes {keyword}=: the mode is the user's choice there")
        new_call = with_keyword(call, "mode", cst.SimpleString(f'"{MODE}"'))
        new = node.with_changes(decorator=new_call) if isinstance(node, cst.Decorator) else new_call
    owner = lightning_hook.compiled_lightning_module(tree, call)
    if owner is None:
        title, why, module = "Compile the step", WHY, replace_nodes(tree.module, {node: new})
    else:
        # Lightning makes the compiled calls: the step's start is marked in its hook before each batch, as the
        # CUDA Graph Trees docs mark it before each step of a loop (then outputs Lightning keeps for the step's end,
        # its loss, are never taken for the previous step's)
        title = "Compile the LightningModule"
        why = (WHY + " Lightning calls the step, so on_train_batch_start marks where each step begins "
                     "(torch.compiler.cudagraph_mark_step_begin()).")
        module = with_torch_import(tree, lightning_hook.mark_step_begin_in_start_hook(tree, owner, {node: new}))
    marked = f", each step's start marked in {lightning_hook.START_HOOK}" if owner is not None else ""
    return Suggestion(
        title=f'{title} with mode="reduce-overhead" (CUDA graphs: one launch per step){marked}',
        why=why,
        patch=patch_for(tree, module),
        alternatives=["a larger batch: more work per launch"],
    )


def _mode_arg() -> cst.Arg:
    return cst.Arg(value=cst.SimpleString(f'"{MODE}"'), keyword=cst.Name("mode"),
                   equal=cst.AssignEqual(whitespace_before=cst.SimpleWhitespace(""),
                                         whitespace_after=cst.SimpleWhitespace("")))


def _the_compile(tree: SourceTree, function: str | None, line: int | None) -> cst.CSTNode:
    """The torch.compile call or decorator that compiles the step."""
    from tdiag.analyzer.suggestions.helpers.compile_dynamic import _compiles_of

    name = (function or "").rsplit(".", 1)[-1]
    func = tree.function_def(name, line) if name else None
    if func is not None:
        found = _compiles_of(tree, func, tree)
        if len(found) == 1:
            return found[0]
    every = [d for d in tree.nodes(cst.Decorator) if tree.qualified(
        d.decorator.func if isinstance(d.decorator, cst.Call) else d.decorator) == "torch.compile"]
    every += [c for c in tree.nodes(cst.Call) if tree.qualified(c.func) == "torch.compile"]
    if len(every) != 1:
        raise NoPatch(f"{len(every)} torch.compile calls in {tree.path}: which one compiles the step is not known")
    return every[0]
