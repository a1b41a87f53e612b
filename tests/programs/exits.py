import sys

import torch


@torch.compile(backend="eager")
def f(x):
    print("inside")
    return x + 1


f(torch.ones(2))
sys.exit(3)
