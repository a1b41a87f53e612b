"""A program whose exit status depends on torch.compile's behaviour: it exits 3 when Dynamo made several graphs.

Patching the branch away changes the exit status; `tdiag fix --verify` must report that as a regression.
"""

import sys

import torch
from torch._dynamo.utils import counters


@torch.compile(backend="eager")
def step(x):
    if x.sum() > 0:
        x = x + 1
    else:
        x = x - 1
    return x * 2


if __name__ == "__main__":
    torch.manual_seed(0)
    print(step(torch.ones(3)).tolist())
    sys.exit(3 if counters["stats"]["unique_graphs"] > 1 else 0)
