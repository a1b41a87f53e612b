"""## What it does
Finds ranks of a distributed job on which torch.compile did something different: a graph break, a recompilation
or a recompile-limit hit that only some ranks saw, or a different number of compiled graphs.

## Why is this bad?
Ranks of a data-parallel job are meant to run the same program. When one rank breaks or recompiles where the
others do not, it runs different graphs: it is slower (and every collective waits for the slowest rank), and a
collective issued from a different place on one rank can hang or mismatch the whole job. A rank that hit the
recompile limit runs eagerly while the others run compiled code.

## Example
```python
if dist.get_rank() == 0:
    loss_value = loss.item()    # graph break on rank 0 only
```

## Use instead
Keep the compiled code identical on every rank: move rank-dependent work (logging, metrics) out of the compiled
function, and make shapes and Python scalars the same on every rank (pad, or mark the dimension dynamic).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

from tdiag.analyzer.evidence import DivergenceEvidence
from tdiag.analyzer.model import Finding, GraphKey
from tdiag.analyzer.rules import Rule
from tdiag.analyzer.torch_text import hit_recompile_limit

# An error: ranks that compile differently run different collectives, which stalls or hangs distributed training.
RULE = Rule("DIV001", "rank-divergence", "error", "Ranks compiled differently: a break, recompile or graph count differs")


def check(ctx):
    a = ctx.analysis
    ranks = list(a.run.ranks)
    if len(ranks) < 2:
        return []
    incomplete = set(a.run.incomplete_ranks)
    findings = []
    findings += _per_site(a.breaks, ranks, incomplete, lambda b: (b.site.path, b.site.line, b.site.function), _break_words)
    findings += _per_site(a.recompiles, ranks, incomplete, lambda r: (r.path, r.line, r.code_name), _recompile_words)
    limit_graphs = [g for g in a.graphs if hit_recompile_limit(g.fail_reason)]
    findings += _per_site(limit_graphs, ranks, incomplete, lambda g: (g.path, g.line, g.code_name), _limit_words)
    findings += _graph_count(a.graphs, ranks, incomplete)
    return findings


def _per_site(items, ranks, incomplete, site_of, words) -> list[Finding]:
    """One finding per site whose per-rank counts differ (a rank with none counts as 0)."""
    by_site: dict[tuple, list[Any]] = defaultdict(list)
    for item in items:
        by_site[site_of(item)].append(item)
    findings = []
    for (path, line, function), group in by_site.items():
        counts = {r: 0 for r in ranks}
        cids: dict[int, list[str]] = defaultdict(list)
        for item in group:
            if item.rank in counts:
                counts[item.rank] += 1
                cids[item.rank].append(item.compile_id)
        if len(set(counts.values())) < 2:
            continue
        odd = divergent_ranks(counts)
        what, fix = words(group[0])
        findings.append(_finding(f"{what} {_on(odd, counts)}{_caveat(incomplete)}", fix, path, line, function,
                                 counts, odd, cids, incomplete, impact=float(sum(counts.values()))))
    return findings


def _graph_count(graphs, ranks, incomplete) -> list[Finding]:
    totals = Counter({r: 0 for r in ranks})
    per_frame: dict[tuple, Counter] = defaultdict(Counter)
    cids: dict[int, list[str]] = defaultdict(list)
    for g in graphs:
        if g.rank in totals:
            totals[g.rank] += 1
            per_frame[(g.path, g.line, g.code_name)][g.rank] += 1
            cids[g.rank].append(g.compile_id)
    if len(set(totals.values())) < 2:
        return []
    # Point at the first compiled function whose graph count differs: that is where the ranks went apart.
    path, line, function = next(
        (site for site, c in per_frame.items() if len({c.get(r, 0) for r in ranks}) > 1), ("<unknown>", 0, None)
    )
    counts = dict(totals)
    odd = divergent_ranks(counts)
    listing = ", ".join(f"rank {r}: {counts[r]}" for r in sorted(counts))
    message = f"ranks compiled different numbers of graphs ({listing}); {_rank_names(odd)} diverged{_caveat(incomplete)}"
    fix = "make the compiled code identical on every rank: no rank-dependent branches, shapes or scalars in it"
    return [_finding(message, fix, path, line, function, counts, odd, cids, incomplete, impact=50.0)]


def divergent_ranks(counts: dict[int, int]) -> list[int]:
    """The ranks that differ from the rest: off the most common value, or, without a majority, above the minimum."""
    tally = Counter(counts.values()).most_common()
    if len(tally) > 1 and tally[0][1] > tally[1][1]:
        usual = tally[0][0]
        return sorted(r for r, n in counts.items() if n != usual)
    low = min(counts.values())
    return sorted(r for r, n in counts.items() if n != low)


def _finding(message, fix, path, line, function, counts, odd, cids, incomplete, impact) -> Finding:
    return RULE.finding(
        message=message,
        fix=fix,
        path=path,
        line=line or 0,
        function=function,
        occurrences=sum(counts.values()),
        compile_ids=sorted({c for r in odd for c in cids.get(r, [])}),
        impact=impact,
        evidence=DivergenceEvidence(
            per_rank={str(r): n for r, n in sorted(counts.items())},
            divergent_ranks=odd,
            compile_ids_by_rank={str(r): cids.get(r, []) for r in sorted(counts)},
            incomplete_ranks=sorted(incomplete),
        ),
        ranks=dict(sorted(counts.items())),
        graph_keys=sorted({GraphKey(r, c) for r in odd for c in cids.get(r, [])}),
    )


def _break_words(b) -> tuple[str, str]:
    gb = f" {b.gb_id}" if b.gb_id else ""
    return (f"graph break ({b.reason}{gb})", "make the code identical on every rank, or move the rank-dependent part out of the compiled function")


def _recompile_words(r) -> tuple[str, str]:
    why = r.failures[0].text if r.failures else "guard failure"
    return (f"{r.code_name} recompiled ({why})", "keep shapes and Python scalars the same on every rank (pad, or mark_dynamic)")


def _limit_words(g) -> tuple[str, str]:
    return (f"{g.code_name} hit the recompile limit and runs eagerly", "remove the cause of the recompiles on the ranks named")


def _on(odd: list[int], counts: dict[int, int]) -> str:
    listing = ", ".join(f"rank {r}: {counts[r]}" for r in sorted(counts))
    return f"on {_rank_names(odd)} only ({listing})"


def _rank_names(ranks: list[int]) -> str:
    return ("rank " if len(ranks) == 1 else "ranks ") + ", ".join(map(str, ranks))


def _caveat(incomplete: set) -> str:
    return f" (the record of {_rank_names(sorted(incomplete))} is incomplete)" if incomplete else ""
