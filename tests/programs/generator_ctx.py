import contextlib

import torch


@contextlib.contextmanager
def noted(name):
    torch._dynamo.graph_break()
    yield name


@torch.compile(backend="eager")
def inside(x):
    with noted("block"):
        y = x * 2
    return y + 1


print(inside(torch.ones(2)).tolist())
