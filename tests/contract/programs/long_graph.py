"""Compiled graphs long enough that their Dynamo graph text is stored as blobs in the record (>= 2 kB each):
one per step count, twelve in all (more than an analysis keeps in memory at once)."""

import torch

torch._dynamo.config.recompile_limit = 64


@torch.compile(backend="eager")
def chain(x, steps):
    for i in range(steps):
        x = torch.sin(x) * (i + 1) + torch.cos(x)
    return x.sum()


for steps in range(40, 52):
    chain(torch.randn(8), steps)
print("ok")
