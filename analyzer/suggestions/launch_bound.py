"""RUN002: a launch-bound CUDA step. Without CUDA graphs: ``mode="reduce-overhead"`` on the step's torch.compile
(helpers/compile_mode.py). With CUDA graphs already on, the patch follows what the rule found left: the optimizer
between the replays gets the optimizer patch (optimizer_step.py); a step too small to fill the GPU gets none (a
larger batch is the user's decision, not a line's)."""

from __future__ import annotations

from tdiag.analyzer.model import Finding, Suggestion
from tdiag.analyzer.suggestions import optimizer_step
from tdiag.analyzer.suggestions.helpers import compile_mode
from tdiag.analyzer.suggestions.helpers.context import NoPatch, SuggestionContext


def suggest(finding: Finding, ctx: SuggestionContext) -> Suggestion:
    found = candidates(finding, ctx)
    if not found:
        raise NoPatch("CUDA graphs are on: " + finding.fix)
    return optimizer_step.with_candidates(found)


def candidates(finding: Finding, ctx: SuggestionContext) -> list[Suggestion]:
    from tdiag.analyzer.rules.run002_launch_bound import cudagraphs_on

    if not cudagraphs_on(ctx.analysis):
        runtime = ctx.analysis.summary.runtime
        line = runtime.step_line if runtime is not None else None
        return [compile_mode.build(ctx, finding.path, finding.function, line)]
    return optimizer_step.candidates(finding, ctx)
