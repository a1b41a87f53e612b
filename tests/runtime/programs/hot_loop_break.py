"""A break inside a hot inner loop (called 50 times a step) and a break called once a step.

Expected: the hot-loop break (line of ``torch._dynamo.graph_break()`` in ``hot``) costs far more per step than the
one in ``once``, and ranks first.
"""

import sys

import torch


@torch.compile(backend="eager")
def once(x):
    y = torch.sin(x) * 2
    torch._dynamo.graph_break()  # called once per step
    return torch.cos(y) + 1


@torch.compile(backend="eager")
def hot(x):
    y = x * 2
    torch._dynamo.graph_break()  # called 50 times per step
    return y + 1


INNER = int(sys.argv[2]) if len(sys.argv) > 2 else 50  # hot's calls per step (tdiag diff test: 50 -> 5)


def step(x):
    x = once(x)
    for _ in range(INNER):
        x = hot(x)
    return x


steps = int(sys.argv[1]) if len(sys.argv) > 1 else 40
x = torch.randn(64)
for _ in range(steps):
    x = step(x).clamp(-1, 1)
print("done", float(x.sum()) == float(x.sum()))
