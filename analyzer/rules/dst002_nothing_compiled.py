"""## What it does
Finds runs where `torch.compile` was entered but produced no graph at all: the "compiled" model ran entirely
eagerly. The classic case is `torch.compile(DDP(model))` where `model` is a torch container
(`nn.Sequential`, `nn.TransformerEncoder`): DDP's forward breaks the graph in `_pre_forward` (GB0156, its logger
call), and after that break Dynamo does not compile torch's own module code entered from eager code. Another:
a model whose layers are `fully_shard`ed (FSDP2), compiled as a whole: FSDP2 runs its hooks under
`torch._dynamo.disable`, so each sharded layer's call breaks the graph, and inside the loop over layers Dynamo
skips the whole `forward`.

Only for a program that ran to its end: one that torch.compile stopped gets a CRS finding instead.

## Why is this bad?
Nothing is faster, and the only trace is a graph break inside torch's own code that looks harmless. The program
pays the compile attempts and keeps eager speed.

## Example
```python
model = torch.compile(DDP(nn.Sequential(nn.Linear(32, 32), nn.ReLU())))
```

## Use instead
```python
model = DDP(torch.compile(nn.Sequential(nn.Linear(32, 32), nn.ReLU())))
```
or wrap the container in your own `nn.Module`, whose `forward` Dynamo does compile (and DDPOptimizer splits at
bucket boundaries).
For FSDP2, compile each block before sharding it (`model.layers[i] = torch.compile(block)`, then `fully_shard`).
"""

import dataclasses
from collections import defaultdict

from tdiag.analyzer.distributed import FSDP2, compile_line, wrapper_breaks, wrapper_of
from tdiag.analyzer.evidence import DistributedEvidence
from tdiag.analyzer.model import Site
from tdiag.analyzer.paths import is_library_display, user_function_name
from tdiag.analyzer.rules import Rule

RULE = Rule("DST002", "nothing-compiled", "error", "torch.compile produced no graph: the model ran eagerly",
            suggester="compile_inner", stops_compilation=True)


def _explained_by_breaks(a, functions: list[str]) -> bool:
    """A graph break at a line of the user's own, in one of the functions Dynamo gave up on: the finding there is the
    cause of nothing compiling (checkpoint_sequential as the first statement of a compiled forward)."""
    return any(b.site is not None and not is_library_display(b.site.path) and b.site.function in functions
               for b in a.breaks)


def check(ctx):
    a = ctx.analysis
    if not a.graphs or any(g.graph_code_ref is not None or g.op_count > 0 for g in a.graphs):
        return []
    if not ran_to_its_end(a):
        return []  # "ran entirely eagerly" would be false: it stopped (the CRS finding says why)
    site = _call_site(a)
    if site is None:
        return []
    wrapper = wrapper_of(a)
    compile_line = _compile_line(a, site.path)
    frames = list(dict.fromkeys(f"{user_function_name(g.code_name)} ({g.path}:{g.line})" for g in a.graphs))
    first_rank = a.graphs[0].rank
    started = sum(1 for g in a.graphs if g.rank == first_rank)
    per_rank = " on each rank" if len({g.rank for g in a.graphs}) > 1 else ""
    mine = list(dict.fromkeys(user_function_name(g.code_name) for g in a.graphs if not is_library_display(g.path)))
    hook_breaks = wrapper_breaks(a) if wrapper in (FSDP2, "FullyShardedDataParallel") else []
    nothing_traced = bool(mine) and not a.breaks and not hook_breaks
    if mine and hook_breaks:
        b = hook_breaks[0]
        reason = (f"Dynamo started your function(s) {', '.join(mine)} but gave up on them: the call of an FSDP-sharded "
                  f"module at {b.site.path}:{b.site.line} is a graph break ({wrapper} runs its hooks under "
                  "torch._dynamo.disable, 'skipping FSDP hooks')"
                  + (", and a break inside a loop skips the whole function" if b.frame_skipped else ""))
        fix = ("compile each block before sharding it (model.layers[i] = torch.compile(block), then fully_shard), "
               "instead of the model around them: FSDP's hooks then run between compiled blocks")
    elif mine and _explained_by_breaks(a, mine):
        return []  # a break at the user's own line already says why (and is costed): one cause, one finding
    elif mine and not a.breaks:
        # no break at all: Dynamo traced the function and found no tensor operation ("No ops traced for the FX
        # graph": torch skips such a frame, by design); there is no break to fix
        reason = (f"Dynamo traced your function(s) {', '.join(mine)} and found no tensor operation to put in a graph "
                  "(torch then skips the frame: there is nothing in it to compile)")
        fix = ("nothing to fix if it does no tensor work; compile the function that does (the model's forward, the "
               "training step) instead")
    elif mine:
        reason = (f"Dynamo started your function(s) {', '.join(mine)} but gave up on each before it held a graph "
                  "(the graph-break findings at their lines say why)")
        fix = "fix those graph breaks first (a break Dynamo cannot resume from skips the whole function)"
    elif wrapper:
        reason = (f"{wrapper}'s forward breaks the graph before it calls your model (GB0156 in _pre_forward); after "
                  "the break Dynamo does not compile torch's own module code (nn.Sequential, TransformerEncoder, ...) "
                  "entered from eager code, and no function of yours was reached")
        fix = "compile the model before wrapping it: DDP(torch.compile(model)), or wrap it in your own nn.Module"
    else:
        reason = "every frame Dynamo started was library code or empty: no function of yours was reached"
        fix = "compile the function or module that does the tensor work"
    ranks = defaultdict(int)
    for g in a.graphs:
        if g.rank is not None:
            ranks[g.rank] += 1
    out = [
        RULE.finding(
            message=f"torch.compile compiled nothing: {started} frame(s) started{per_rank}, 0 graphs - the model ran "
            f"entirely eagerly. {reason}",
            fix=fix,
            path=site.path, line=site.line, column=site.column, end_column=site.end_column, function=site.function,
            occurrences=1,
            compile_ids=sorted({g.compile_id for g in a.graphs}),
            impact=1000.0,  # the whole compiled region is lost: ranked first
            evidence=DistributedEvidence(wrapper=wrapper, frames=frames, compile_line=compile_line, reason=reason),
            ranks=dict(ranks),
            graph_keys=sorted(g.key for g in a.graphs),
        )
    ]
    if nothing_traced:  # torch's own skip of a frame with no tensor operation: info, nothing to fix
        out = [dataclasses.replace(f, severity="info", by_design=True, impact=0.1) for f in out]
    return out


def ran_to_its_end(a) -> bool:
    """No thread died of torch.compile, and the program was not stopped by an exception or a signal."""
    if any(c.caused_by_torch for c in a.crashes):
        return False
    return a.run.exit_reason not in ("exception", "keyboard_interrupt", "signal")


def _call_site(a) -> Site | None:
    """The user line that entered torch.compile first, else the user line of the first break."""
    for frame in sorted(a.frames, key=lambda f: (f.rank if f.rank is not None else -1, f.frame_id)):
        site = getattr(frame, "call_site", None)
        if site is not None and not is_library_display(site.path):
            return site
    for b in a.breaks:
        if not is_library_display(b.site.path):
            return b.site
    return None


def _compile_line(a, path: str) -> str | None:
    """path:line of the torch.compile(DDP(...)) call in the recorded source of the calling file."""
    line = compile_line(a.sources.get(path) or "")
    return f"{path}:{line}" if line else None
