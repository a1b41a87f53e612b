"""## What it does
Finds functions that hit Dynamo's recompile limit (`torch._dynamo.config.recompile_limit`, 8 by default).

## Why is this bad?
From then on the function runs **eagerly**, silently: every later call pays the guard checks and gets no
compiled code at all. It is the most expensive way a compile can fail.

## Example
```python
for mode in ("a", "bb", "cccc", ...):
    shift(x, mode)       # a new constant each call
```

## Use instead
Remove the cause of the recompiles (see the failing guards listed with the finding): mark the changing
dimension dynamic, pass changing scalars as tensors, or keep them constant.
"""

from tdiag.analyzer.evidence import RecompileLimitEvidence
from tdiag.analyzer.model import Finding, GraphKey
from tdiag.analyzer.guard_words import user_words
from tdiag.analyzer.rules import Rule
from tdiag.analyzer.rules._recompiles import change_words, dominant_failure, primary_failure
from tdiag.analyzer.rules._sites import anchor
from tdiag.analyzer.torch_text import hit_recompile_limit

RULE = Rule("RCP005", "recompile-limit", "error", "Hit the recompile limit: the function now runs eagerly",
            suggester="recompile_limit", cost="samples", stops_compilation=True)


def check(ctx):
    a = ctx.analysis
    by_site: dict[tuple[str, int], Finding] = {}
    raised = {c.rank for c in a.crashes if c.exception.endswith("FailOnRecompileLimitHit")}  # CRS003: it did not run eagerly
    for frame in a.frames:
        if not frame.hit_recompile_limit or frame.rank in raised:
            continue
        same_frame = (frame.rank, frame.frame_id)
        limit_graphs = [
            g for g in a.graphs if (g.rank, g.frame_id) == same_frame and hit_recompile_limit(g.fail_reason)
        ]
        reasons = [f.text for r in a.recompiles if (r.rank, r.frame_id) == same_frame for f in r.failures[:1]]
        # what changed in the user's terms where the guard's text says nothing to them (a dict's key order, a global
        # dict the program changes): the last recompile's cause
        said = [change_words(dominant_failure(r) or primary_failure(r)) for r in a.recompiles
                if (r.rank, r.frame_id) == same_frame]
        hits = max(1, len(limit_graphs))
        site, library = anchor(frame.path, frame.line, frame.code_name, ctx.frame_sites.get(same_frame))
        finding = by_site.get(site.key)
        if finding is None:  # the same function on several ranks is one finding with per-rank counts
            # torch's guard text in the user's names (guard_words.py): no Dynamo name or torch source comment
            last = said[-1] if said and said[-1] else (
                user_words(reasons[-1], frame.code_name) if reasons else "a guard torch did not log")
            finding = by_site[site.key] = RULE.finding(
                message=f"{frame.code_name} hit the recompile limit after {_recompilations(a, frame)} recompilations "
                f"and now runs "
                f"eagerly (last failing guard: {last})",
                fix="remove the cause of the recompiles: mark_dynamic for sizes, tensors for changing scalars",
                path=site.path,
                line=site.line,
                library_frame=library,
                function=frame.code_name,
                occurrences=0,
                impact=100.0,
                evidence=RecompileLimitEvidence(
                    failures=reasons, fail_reason=limit_graphs[0].fail_reason if limit_graphs else None
                ),
            )
        finding.occurrences += hits
        finding.compile_ids += [g.compile_id for g in limit_graphs] or list(frame.variants)
        finding.graph_keys += [g.key for g in limit_graphs] or [GraphKey(frame.rank, c) for c in frame.variants]
        if frame.rank is not None:
            finding.ranks[frame.rank] = finding.ranks.get(frame.rank, 0) + hits
    return list(by_site.values())


def _recompilations(a, frame) -> int:
    """The recompiles torch made before the limit, as its own account counts them (TORCH_LOGS=recompiles: 7 under
    the default limit of 8): the frame's compiled graphs after its first; the attempt refused at the limit compiled
    nothing (blind batch 5: "after 8 recompilations" where torch logged 7)."""
    compiled = {g.compile_id.split(" ")[0] for g in a.graphs if (g.rank, g.frame_id) == (frame.rank, frame.frame_id)
                and not hit_recompile_limit(g.fail_reason)}
    return len(compiled) - 1 if compiled else frame.recompiles
