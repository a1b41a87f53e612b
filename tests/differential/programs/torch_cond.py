"""``torch.cond`` with a data-dependent predicate, compiled, beside the same branch written as Python ``if``."""

# differential: kind=script
import torch

torch.manual_seed(0)


def pos(x):
    return x.sin() * 2


def neg(x):
    return x.cos() - 1


@torch.compile(backend="eager")
def with_cond(x):
    return torch.cond(x.sum() > 0, pos, neg, (x,))


@torch.compile(backend="eager")
def with_if(x):
    if x.sum() > 0:
        return pos(x)
    return neg(x)


for i in range(6):
    x = torch.randn(5) + (1 if i % 2 else -1)
    print(i, round(with_cond(x).sum().item(), 4), round(with_if(x).sum().item(), 4))
