from copy import deepcopy

import torch


@torch.compile(backend="eager")
def step(buffers, x):
    before = deepcopy(buffers)
    buffers[0].add_(x)
    return sum(b.sum() for b in before), buffers[0].sum()


bufs = [torch.zeros(2), torch.ones(2)]
for _ in range(3):
    old, new = step(bufs, torch.ones(2))
print("old:", old.item(), "new:", new.item())
