"""Patch kinds: the one table from the name a rule gives (``Rule.suggester``) to the function that words its fix.

Each entry is ``"module:function"``, the form of a console-script entry point, resolved with the standard library's
``pkgutil.resolve_name`` on first use: a summary that needs no patch imports no syntax trees. The function is
``suggest(finding, ctx) -> Suggestion``; it raises ``NoPatch(why)`` where the code does not allow a patch, and then
the kind's ``fallback`` (a function of the same shape; without one, the rule's generic words) is the suggestion, with
``why`` as its patch note.

Adding a patch kind is one module and one line: write ``suggest`` (in ``suggestions/`` or ``suggestions/helpers/``),
add ``"my_kind": PatchKind("tdiag.analyzer.suggestions.helpers.my_kind:suggest")`` below, and name it in the rule
(``Rule(..., suggester="my_kind")``). Rules never import suggestions (an import-linter contract): a rule names a
kind, this table resolves it. tests/contract/test_rule_registry.py checks every named kind is here and resolves.
"""

from __future__ import annotations

import pkgutil
from collections.abc import Callable

from tdiag.lean_dataclass import lean_dataclass


@lean_dataclass(frozen=True)
class PatchKind:
    suggest: str  # "module:function": (finding, ctx) -> Suggestion, raising NoPatch when the code allows none
    fallback: str | None = None  # "module:function" of the same shape, for NoPatch (None: the rule's generic words)


PATCH_KINDS: dict[str, PatchKind] = {
    # WRN002: the compiled call (and the loss after it) under bfloat16 autocast, judged by the step time
    "autocast": PatchKind("tdiag.analyzer.suggestions.autocast:suggest"),
    "branch": PatchKind("tdiag.analyzer.suggestions.branch:suggest"),
    # CCH001: the config line that turned a compile cache off is removed (an environment switch: words only)
    "cache_switch": PatchKind("tdiag.analyzer.suggestions.cache_switch:suggest"),
    "compile_inner": PatchKind("tdiag.analyzer.suggestions.compile_inner:suggest",
                               "tdiag.analyzer.suggestions.compile_inner:fallback"),
    "crash": PatchKind("tdiag.analyzer.suggestions.crash:suggest", "tdiag.analyzer.suggestions.crash:fallback"),
    # CGR002: cudagraph_skip_dynamic_graphs for a dynamic graph recorded once per size
    "cudagraph_rerecord": PatchKind("tdiag.analyzer.suggestions.cudagraph_rerecord:suggest"),
    # CGR001: a host read torch names as the reason CUDA graphs were skipped, taken out of the compiled function
    # the catalogue's torch-native candidates with a `rewrite` (source and target code as data in breaks.toml)
    "call_rewrite": PatchKind("tdiag.analyzer.suggestions.helpers.call_rewrite:suggest"),
    "cudagraph_skip": PatchKind("tdiag.analyzer.suggestions.cudagraph_skip:suggest"),
    "dtype_change": PatchKind("tdiag.analyzer.suggestions.dtype_change:suggest"),
    # the catalogue's move-out candidates: a call made before the compiled function and passed in, a class
    # statement moved to module level (named by catalogue/breaks.toml's `builder`, tried by catalogue_candidates)
    "hoist_definition": PatchKind("tdiag.analyzer.suggestions.helpers.hoist_definition:suggest"),
    # the catalogue's move-out candidate for a context manager Dynamo cannot enter: the with around the call
    "hoist_with": PatchKind("tdiag.analyzer.suggestions.helpers.hoist_with:suggest"),
    "hoist_to_caller": PatchKind("tdiag.analyzer.suggestions.helpers.hoist_to_caller:suggest"),
    # the catalogue's move-in candidate: the dict itself passed in, its view made inside
    "pass_container": PatchKind("tdiag.analyzer.suggestions.helpers.pass_container:suggest"),
    # the catalogue's read-after-call candidate: the operand returned, the host operation (repr, .tolist(), a
    # bound method, a hook registered on an intermediate) done by each caller after the call
    "return_operand": PatchKind("tdiag.analyzer.suggestions.helpers.return_operand:suggest"),
    "frame_skipped": PatchKind("tdiag.analyzer.suggestions.frame_skipped:suggest"),
    # RUN002: mode="reduce-overhead" on the step's compile; with CUDA graphs on, the optimizer's candidates
    "launch_bound": PatchKind("tdiag.analyzer.suggestions.launch_bound:suggest"),
    "logging_call": PatchKind("tdiag.analyzer.suggestions.logging_call:suggest",
                              "tdiag.analyzer.suggestions.logging_call:fallback"),
    # BRK007: x[mask] reduced at once, weighed by the mask instead (static shapes); torch's hint the next candidate
    "mask_select": PatchKind("tdiag.analyzer.suggestions.mask_select:suggest"),
    "mark_dynamic": PatchKind("tdiag.analyzer.suggestions.mark_dynamic:suggest",
                              "tdiag.analyzer.suggestions.mark_dynamic:fallback"),
    "mode_flip": PatchKind("tdiag.analyzer.suggestions.mode_flip:suggest"),
    # RUN001: foreach / fused / the compiled optimizer step, by device, the rest as candidates verification tries
    "optimizer_step": PatchKind("tdiag.analyzer.suggestions.optimizer_step:suggest"),
    "recompile_limit": PatchKind("tdiag.analyzer.suggestions.recompile_limit:suggest"),
    "scalar_arg": PatchKind("tdiag.analyzer.suggestions.scalar_arg:suggest",
                            "tdiag.analyzer.suggestions.scalar_arg:fallback"),
    "scalar_item": PatchKind("tdiag.analyzer.suggestions.scalar_item:suggest",
                             "tdiag.analyzer.suggestions.scalar_item:fallback"),
    "to_python": PatchKind("tdiag.analyzer.suggestions.to_python:suggest"),
    "untraceable_call": PatchKind("tdiag.analyzer.suggestions.untraceable_call:suggest"),
    # WRN001: the statement torch_warnings.json names for a warning (TF32's matmul precision), after the imports
    "warning_setting": PatchKind("tdiag.analyzer.suggestions.warning_setting:suggest"),
}
# A rule that names no kind: its fix line and rationale, as words (no patch).
GENERIC = PatchKind("tdiag.analyzer.suggestions.generic:suggest")


def patch_kind(name: str | None) -> PatchKind:
    """The kind a rule names (``None``: the generic words). KeyError for a name the table lacks (a rule's typo)."""
    return GENERIC if name is None else PATCH_KINDS[name]


def resolve(reference: str) -> Callable:
    """The function a ``"module:function"`` entry names, importing its module (looked up on every call, so a test
    that replaces the module's function reaches the replacement)."""
    return pkgutil.resolve_name(reference)
