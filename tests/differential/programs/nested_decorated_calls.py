"""A decorated function calling another decorated function (the inner one is inlined into the outer graph), with a
graph break in the inner one and a shape change."""

# differential: kind=script
import torch

torch.manual_seed(0)


@torch.compile(backend="eager")
def inner(x):
    y = x.sin()
    if y.sum() > 0:  # data-dependent branch: a graph break inside the inlined callee
        return y * 2
    return y - 1


@torch.compile(backend="eager")
def outer(x):
    return inner(x + 1).cos()


for n in (4, 4, 6, 6, 8):
    print(n, round(outer(torch.randn(n)).sum().item(), 4))
