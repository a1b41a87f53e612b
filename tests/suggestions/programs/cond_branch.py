"""Assignments of several statements per side (a temporary): torch.where cannot express it, torch.cond can."""

import torch


@torch.compile(backend="eager")
def step(x):
    y = torch.relu(x)
    if y.sum() > 4.0:  # large activations
        t = y * 0.5
        y = t + 1
    else:
        y = y - 1
    return y * 3


if __name__ == "__main__":
    torch.manual_seed(0)
    for _ in range(4):
        out = step(torch.randn(4, 3) * 2)
        print([round(v, 4) for v in out.flatten().tolist()])
