"""CGR002: a compiled function recorded as a CUDA graph again and again. For a dynamic graph (recordings keyed by
symbolic sizes), the patch is torch's switch that keeps dynamic graphs out of CUDA graphs
(helpers/cudagraph_skip_dynamic.py); for static graphs recompiled per size, padding is the fix and no line does it."""

from __future__ import annotations

from tdiag.analyzer.model import Finding, Suggestion
from tdiag.analyzer.suggestions.helpers import cudagraph_skip_dynamic
from tdiag.analyzer.suggestions.helpers.context import NoPatch, SuggestionContext


def suggest(finding: Finding, ctx: SuggestionContext) -> Suggestion:
    keys = set(finding.compile_ids)
    recordings = [r for g in ctx.analysis.graphs if g.compile_id in keys and g.cudagraph is not None
                  for r in g.cudagraph.recordings]
    if not any(r.symint_key for r in recordings):
        raise NoPatch("the graphs recorded again are static (one compile per size): pad or bucket the sizes")
    return cudagraph_skip_dynamic.build(ctx, finding.path)
