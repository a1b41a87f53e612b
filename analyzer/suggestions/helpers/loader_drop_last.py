"""Patch kind ``drop_last=True`` on the training DataLoader (CGR002: a graph recorded again for the last batch).

A loader whose dataset is not a multiple of the batch size ends each epoch with a smaller batch. Under
``mode="reduce-overhead"`` that size is a new CUDA graph recording (and, before automatic dynamic shapes, a new
compile), every epoch; ``drop_last=True`` keeps one size, recorded once and replayed. It changes which samples an
epoch sees (the remainder is skipped; a shuffling loader skips different ones each epoch), so the patch is a
candidate that ``tdiag fix --verify`` keeps only when the output stays within tolerance and the step got faster.

The patch applies only where the evidence says the batch is what varies (the recordings' input sizes differ in their
first dimension only) and the file builds exactly one loader that can be the training loader (``shuffle=True`` picks
it among several).
"""

from __future__ import annotations

import re

import libcst as cst
from tdiag.analyzer.model import CudaGraphRecording, Suggestion
from tdiag.analyzer.suggestions.helpers.call_keyword import keyword_value, with_keyword
from tdiag.analyzer.suggestions.helpers.context import NoPatch, SuggestionContext, patch_for, replace_nodes
from tdiag.analyzer.suggestions.helpers.syntax import SourceTree

KIND = "loader-drop-last"
LOADERS = ("torch.utils.data.DataLoader", "torch.utils.data.dataloader.DataLoader")
WHY = (
    "The last batch of each epoch is smaller, and a new size is a new CUDA graph recording (an eager run and a "
    "capture). drop_last=True skips that remainder, so every step has the size that was recorded once. Each epoch "
    "then sees up to batch_size - 1 fewer samples."
)
_SIZE = re.compile(r"\d+")


def batch_varies(recordings: list[CudaGraphRecording]) -> bool:
    """Whether the recordings' input sizes differ, and only in their first dimension (the batch).

    Judged on the forward (or inference) recordings, the inputs the caller passes: a backward recording's inputs are
    the saved activations and gradients, another list (on the H200, torch 2.11, a loader's last batch of 40 rows
    gave forward recordings [64, 256] [64, 1] and [40, 256] [40, 1] beside backward ones of their own), and
    recordings are compared with those of the same number of inputs (a dynamic graph's list is not a static one's)."""
    forward = [r for r in recordings if (r.mode or "").upper() in ("FORWARD", "INFERENCE")]
    sized = [r.inputs for r in forward or recordings if r.inputs]
    groups: dict[int, list[list[str]]] = {}
    for inputs in sized:
        groups.setdefault(len(inputs), []).append(inputs)
    varied = False
    for group in groups.values():
        for position in zip(*group):
            dims = [tuple(_SIZE.findall(size)) for size in position]
            if len(set(dims)) == 1:
                continue
            if len({len(d) for d in dims}) != 1 or not dims[0] or len({d[1:] for d in dims}) != 1:
                return False  # rank or a later dimension differs: sequence lengths, not the last batch
            varied = True
    return varied


def training_loader(tree: SourceTree) -> cst.Call:
    """The one ``DataLoader(...)`` call that can feed training: the only one, or the only one with shuffle=True."""
    calls = [c for c in tree.nodes(cst.Call) if tree.qualified(c.func) in LOADERS]
    if not calls:
        raise NoPatch("no DataLoader built in this file")
    if len(calls) > 1:
        calls = [c for c in calls if tree.code(keyword_value(c, "shuffle") or cst.Name("False")) == "True"]
        if len(calls) != 1:
            raise NoPatch("several DataLoaders and none stands out as the training one (shuffle=True)")
    call = calls[0]
    if keyword_value(call, "batch_sampler") is not None:
        raise NoPatch("the DataLoader takes a batch_sampler, which decides the batch sizes")
    return call


def build(ctx: SuggestionContext, path: str) -> Suggestion:
    """The patch on ``path``'s training loader; the caller has checked ``batch_varies`` on the recordings."""
    tree = ctx.tree(path)
    call = training_loader(tree)
    new = with_keyword(call, "drop_last", cst.Name("True"), replace=("False",))
    return Suggestion(
        title="Drop the odd last batch (DataLoader(..., drop_last=True)): one size, one CUDA graph",
        why=WHY,
        patch=patch_for(tree, replace_nodes(tree.module, {call: new})),
        alternatives=["pad the last batch to the batch size (and mask its padded rows out of the loss)"],
    )
