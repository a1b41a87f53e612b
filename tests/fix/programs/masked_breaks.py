"""Two causes, one behind the other: under fullgraph=True torch.compile stops the program at the first
data-dependent branch, so the second one is only reached once the first is a torch.where."""

import torch


@torch.compile(backend="eager", fullgraph=True)
def step(x):
    if x.sum() > 0:
        x = x * 0.5
    else:
        x = x + 1
    if x.mean() > 0.1:
        x = x - 0.25
    else:
        x = x * 2
    return x.sum(dim=0)


if __name__ == "__main__":
    torch.manual_seed(0)
    for _ in range(12):
        out = step(torch.randn(4, 3))
        print([round(v, 4) for v in out.tolist()])
