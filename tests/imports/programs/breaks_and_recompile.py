"""Two graph breaks (a data-dependent branch, a print) and one recompile (batch 4 then 8)."""

import torch


def step(x):
    y = x * 2
    if y.sum() > 0:
        y = y + 1
    print("step")
    return y.relu()


compiled = torch.compile(step, backend="eager", dynamic=False)
for batch in (4, 8):
    compiled(torch.ones(batch, 3))
