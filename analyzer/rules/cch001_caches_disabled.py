"""## What it does
Finds compile caches that the environment or the program turned off: `TORCH_COMPILE_DEBUG=1`,
`TORCHINDUCTOR_FORCE_DISABLE_CACHES=1`, `torch._inductor.config.fx_graph_cache = False`,
`torch._inductor.config.force_disable_caches = True`, `torch._functorch.config.enable_autograd_cache = False`.

## Why is this bad?
With the FX graph cache and the AOTAutograd cache off, every process compiles every graph from scratch: each run,
each rank and each restart pays the whole compile time again, though nothing changed. `TORCH_COMPILE_DEBUG=1`
turned the cache off silently on some releases; on torch 2.13 it raises the provenance level, a key component,
so a warm cache misses once (`tdiag diff` names it). A switch is reported only where torch then looked nothing up.

## Example
```python
torch._inductor.config.fx_graph_cache = False   # or TORCH_COMPILE_DEBUG=1 in the job's environment
model = torch.compile(model)
```

## Use instead
Leave the caches on (they are by default); for debug output use `TORCH_TRACE=/tmp/trace` or `TORCH_LOGS`, which
keep them on.
"""

from tdiag.analyzer.cache_diff import _setting_site
from tdiag.analyzer.evidence import CompileCacheEvidence
from tdiag.analyzer.rules import Rule

RULE = Rule("CCH001", "compile-caches-disabled", "warning", "A compile cache was turned off by the environment or "
            "the program", suggester="cache_switch")


def check(ctx):
    a = ctx.analysis
    cc = a.summary.compile_cache
    disabled = [o for g in a.graphs for o in g.cache_outcomes if o.state == "disabled"]
    if not cc.disabled:
        return []
    graphs = [g for g in a.graphs if any(o.state == "disabled" for o in g.cache_outcomes)]
    seconds = round(sum(g.compile_time_s for g in graphs), 3)
    first = disabled[0] if disabled else None
    setting = first.reason if first else ""
    site = _setting_site(setting.split(".", 1)[1], a.sources) if setting and not setting.startswith("env:") else None
    if site:
        path, _, line = site.rpartition(":")
        function = None
    elif graphs:
        anchor, _ = ctx.graph_anchor(graphs[0])
        path, line, function = anchor.path, anchor.line, graphs[0].code_name
    else:
        return []  # nothing Inductor compiled: the switch cost nothing here
    words = "; ".join(cc.disabled)
    cost = f": the {len(graphs)} graph(s) Inductor compiled ({seconds:.1f}s) are compiled again by every run" \
        if graphs else ""
    return [RULE.finding(
        message=f"{words}{cost}",
        fix=first.fix if first and first.fix else "turn the compile caches back on",
        path=path, line=int(line), function=function,
        compile_ids=[g.compile_id for g in graphs],
        graph_keys=[g.key for g in graphs],
        impact=seconds,
        evidence=CompileCacheEvidence(cache="all", state="disabled", cause=words, torch_reason=setting,
                                      seconds=seconds, graphs=len(graphs)),
    )]
