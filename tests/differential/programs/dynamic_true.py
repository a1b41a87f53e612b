"""``dynamic=True`` from the start, then a size specialisation on a Python int that changes."""

# differential: kind=script
import torch

torch.manual_seed(0)


@torch.compile(backend="eager", dynamic=True)
def f(x, k):
    return x.reshape(-1, k).sum(1)


for n, k in ((8, 2), (12, 2), (12, 3), (16, 4), (20, 4)):
    print(n, k, f(torch.arange(n, dtype=torch.float32), k).tolist())
