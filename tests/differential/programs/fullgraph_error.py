"""``fullgraph=True`` on a function that graph-breaks: torch raises, the program catches it, then exits 3."""

# differential: kind=script
import sys

import torch


@torch.compile(backend="eager", fullgraph=True)
def f(x):
    print("inside")  # a graph break, which fullgraph=True forbids
    return x + 1


@torch.compile(backend="eager", fullgraph=True)
def g(x):
    return x * 2


print(g(torch.ones(2)).tolist())
try:
    f(torch.ones(2))
except Exception as exc:
    print("caught", type(exc).__name__)
sys.exit(3)
