"""Single-call cases for the torch._dynamo.explain oracle: `python explain_cases.py CASE` compiles and calls one."""

import sys

import torch


def branch(x):
    y = torch.relu(x) + 1
    if y.sum() > 2:
        y = y * 2
    return y - 1


def item_then_print(x):
    y = x.cos()
    s = y.sum().item()
    z = y * s
    print("computed")
    return z + 1


def nested(x):
    def inner(t):
        u = t * 3
        if u.mean() > 0:
            return u + 1
        return u
    a = x + 2
    return inner(a) * 2


def clean(x):
    return torch.nn.functional.gelu(x @ x.T).sum(dim=0)


CASES = {"branch": branch, "item_then_print": item_then_print, "nested": nested, "clean": clean}


def inputs():
    torch.manual_seed(0)
    return (torch.randn(4, 4),)


if __name__ == "__main__":
    fn = CASES[sys.argv[1]]
    print(torch.compile(fn, backend="eager")(*inputs()).sum().item())
