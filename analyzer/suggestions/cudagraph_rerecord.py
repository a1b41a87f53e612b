"""CGR002: a compiled function recorded as a CUDA graph again and again. The candidates, in the order `tdiag fix
--verify` tries them: ``drop_last=True`` on the training loader where only the batch size varies (every step keeps
CUDA graphs: helpers/loader_drop_last.py), then, for a dynamic graph (recordings keyed by symbolic sizes), torch's
switch that keeps dynamic graphs out of CUDA graphs (helpers/cudagraph_skip_dynamic.py). For static graphs
recompiled per size with no loader to patch, padding is the fix and no line does it."""

from __future__ import annotations

from tdiag.analyzer.model import Finding, Suggestion
from tdiag.analyzer.suggestions.helpers import cudagraph_skip_dynamic, loader_drop_last
from tdiag.analyzer.suggestions.helpers.context import NoPatch, SuggestionContext


def suggest(finding: Finding, ctx: SuggestionContext) -> Suggestion:
    keys = set(finding.compile_ids)
    recordings = [r for g in ctx.analysis.graphs if g.compile_id in keys and g.cudagraph is not None
                  for r in g.cudagraph.recordings]
    candidates, refusals = [], []
    if loader_drop_last.batch_varies(recordings):
        # the loader is usually built in the file that calls the step; another recorded file of the user's otherwise
        for path in dict.fromkeys([finding.path, *ctx.analysis.sources]):
            try:
                candidates.append(loader_drop_last.build(ctx, path))
                break
            except NoPatch as why:
                if path == finding.path:
                    refusals.append(f"drop_last: {why}")
    else:
        refusals.append("drop_last: the recordings' sizes do not differ in the batch dimension only")
    if any(r.symint_key for r in recordings):
        try:
            candidates.append(cudagraph_skip_dynamic.build(ctx, finding.path))
        except NoPatch as why:
            refusals.append(str(why))
    else:
        refusals.append("the graphs recorded again are static (one compile per size): pad or bucket the sizes")
    if not candidates:
        raise NoPatch("; ".join(refusals))
    first, *rest = candidates
    first.candidates = rest
    return first
