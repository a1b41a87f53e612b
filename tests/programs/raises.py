import torch


@torch.compile(backend="eager")
def f(x):
    if x.sum() > 0:
        return x + 1
    return x


f(torch.ones(2))
raise ValueError("boom from the program")
