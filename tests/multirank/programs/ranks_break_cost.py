"""Two gloo ranks; a step starts with one compiled call (``start``: what tdiag counts as a step) and then calls a
compiled function with a graph break 4 times on rank 0 and 40 times on rank 1.

Expected (by hand): both ranks' windows are measured; the break costs rank 1 far more than rank 0, and the finding
carries the slower rank's cost (the slowest rank sets the step time).
"""

import torch
import torch.distributed as dist

dist.init_process_group("gloo")
rank = dist.get_rank()


@torch.compile(backend="eager")
def start(x):
    return torch.sin(x) * 2


@torch.compile(backend="eager")
def hot(x):
    y = x * 2
    torch._dynamo.graph_break()
    return y + 1


calls = 40 if rank == 1 else 4
x = torch.randn(64)
for _ in range(40):
    x = start(x)
    for _ in range(calls):
        x = hot(x).clamp(-1, 1)
    dist.all_reduce(x)
    x = x / 2
dist.destroy_process_group()
