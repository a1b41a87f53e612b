"""## What it does
Finds a program that torch.compile stopped with a graph break it was told not to take: `fullgraph=True`, or
`torch._dynamo.error_on_graph_break(True)`. torch raises `Unsupported` from the compiled call; the cause is the
line Dynamo was tracing, with torch's graph-break id (GB...).

## Why is this bad?
The program does not run to its end. Without `fullgraph=True` the same construct would only split the graph
(and be a BRK finding); with it, the first call of the compiled function raises.

## Example
```python
@torch.compile(fullgraph=True)
def step(x):
    if x.sum() > 0:          # Unsupported: Data-dependent branching (GB0170)
        return x + 1
    return x - 1
```

## Use instead
```python
@torch.compile(fullgraph=True)
def step(x):
    return torch.where(x.sum() > 0, x + 1, x - 1)
```
or `torch.cond` for branches with side effects, or drop `fullgraph=True` to let torch split the graph there.
"""

from tdiag.analyzer.crash import short_name
from tdiag.analyzer.distributed import FSDP2_FULLGRAPH_FIX, fsdp2_hook_break
from tdiag.analyzer.rules import Rule
from tdiag.analyzer.rules._crashes import quoted, raised_at

RULE = Rule("CRS001", "graph-break-error", "error", "A graph break under fullgraph=True stopped the program",
            suggester="crash", claims="crashes", priority=50)
KIND = "graph_break"
BRANCH_IDS = {"GB0170"}  # data-dependent branching


def matches(crash) -> bool:
    return short_name(crash.exception) == "Unsupported" or bool(crash.gb_type)


def message(crash, ctx) -> str:
    cause = quoted(crash.gb_type or crash.headline)
    gb = f" {crash.gb_id}" if crash.gb_id else ""
    text = f"graph break{gb} ({cause}) here is an error under {policy(ctx.analysis, crash)}{raised_at(crash)}"
    if fsdp2_hook_break(crash.message):
        text += ("; the skipped function is FSDP2's hook of the fully_shard'ed module called here (torch runs FSDP's "
                 "hooks under torch._dynamo.disable by design, pytorch#181924)")
    return text


def policy(analysis, crash) -> str:
    """fullgraph=True or error_on_graph_break, as far as the recorded source of the crash's file shows it."""
    text = "\n".join(analysis.sources.get(s.path) or "" for s in (crash.site, crash.call_site) if s is not None)
    if "error_on_graph_break" in text and "fullgraph=True" not in text:
        return "torch._dynamo.error_on_graph_break(True)"
    if "fullgraph=True" in text or "fullgraph" not in text:
        return "fullgraph=True"
    return "fullgraph=True or torch._dynamo.error_on_graph_break"


def fix(crash, ctx) -> str:
    if fsdp2_hook_break(crash.message):
        return FSDP2_FULLGRAPH_FIX
    if crash.gb_id in BRANCH_IDS:
        return "compute both branches with torch.where, or express the branch with torch.cond"
    return ("remove the construct from the compiled function (torch's hints in the evidence say how), or let torch "
            "split the graph here: drop fullgraph=True / error_on_graph_break")
