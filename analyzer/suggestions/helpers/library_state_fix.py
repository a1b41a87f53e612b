"""RCP002/RCP006 on state a library keeps on an object of the user's (torchmetrics' ``_update_count`` on
``val_metric``): the suggestion names the object, the library and the user's own call that changes it, found in the
compiled function's recorded source. The user holds the object and makes the call; the guarded attribute is the
library's, so no fix is phrased from it.
"""

from __future__ import annotations

import libcst as cst
from tdiag.analyzer.evidence import RecompileEvidence, evidence_as
from tdiag.analyzer.library_state import LibraryState, library_state
from tdiag.analyzer.model import Finding, GuardFailure, Suggestion
from tdiag.analyzer.rules._recompiles import subject_name
from tdiag.analyzer.suggestions.helpers.context import NoPatch, SuggestionContext
from tdiag.analyzer.suggestions.helpers.syntax import dotted


def owned_state(finding: Finding) -> LibraryState | None:
    ev = evidence_as(finding.evidence, RecompileEvidence)
    if not ev.subject:
        return None
    failure = GuardFailure(entry="", text=ev.guard or "", kind=ev.guard_kind or "other", subject=ev.subject,
                           source=ev.guard_source, path=ev.guard_path, line=ev.guard_line)
    return library_state(failure, subject_name(failure))


def suggest(finding: Finding, ctx: SuggestionContext, owned: LibraryState) -> Suggestion:
    ev = evidence_as(finding.evidence, RecompileEvidence)
    library = owned.library or "the library"
    if owned.expected_once:
        return Suggestion(
            title=f"Expected: {owned.holder}'s state is filled by its first step(), one more compile",
            why="An optimizer's per-parameter state (exp_avg, step, ...) is empty until its first step() and filled "
                "by it; the compiled code that reads it is compiled once for each, then stays.",
            alternatives=["nothing to fix; to compile only once, run one optimizer step before the compiled loop"],
        )
    call = _user_call(ctx, ev, owned.holder)
    where = f"`{call[0]}` (line {call[1]})" if call else f"the call on `{owned.holder}`"
    changed = f" (`{owned.changed_by}`)" if owned.changed_by else ""
    return Suggestion(
        title=f"Make {where} outside the compiled function: it changes {library}'s `{owned.attribute}` on "
              f"`{owned.holder}` every call",
        why=f"{where} changes `{owned.attribute}`, state {library} keeps on `{owned.holder}`{changed}. Dynamo "
            "compiles the integer in as a constant and guards on it, so every call fails the guard and compiles "
            "again, until the recompile limit sends the function to eager.",
        patch_note="no patch: the call's arguments are computed inside the compiled function; return them and make "
                   "the call after it",
        alternatives=[
            f"return what {where} needs from the compiled function and make the call after it returns (it runs "
            "eagerly, once per step, as it would uncompiled)",
            f"put {where} in a small function of yours decorated with @torch.compiler.disable: the graph splits "
            "there, the call runs eagerly, and nothing is guarded on its state",
        ],
    )


def _user_call(ctx: SuggestionContext, ev: RecompileEvidence, holder: str) -> tuple[str, int] | None:
    """The call on ``holder`` inside the compiled function (``val_metric.update(pred, y)``), with its line."""
    try:
        tree = ctx.tree(ev.frame_path)
    except NoPatch:
        return None
    func = tree.function_def(ev.frame, ev.frame_line) if ev.frame else None
    if func is None:
        return None
    for node in tree.nodes(cst.Call):
        name = dotted(node.func) or ""
        if name.startswith(holder + ".") and tree.enclosing_function(node) is func:
            return tree.code(node), tree.start_line(node)
    return None
