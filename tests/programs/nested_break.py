import torch


def helper(t):
    s = t.sum()
    if s > 0:
        return t * 2
    return t


@torch.compile(backend="eager")
def outer(x):
    y = x + 1
    z = helper(y)
    return z - 1


print(outer(torch.ones(3)).tolist())
