"""A compiled function called once (setup) and another called 400 times in a loop, each with a graph break.

Expected: the step is `loop` (setup never repeats), the window is measured, and the break in `loop` (hit 400 times)
ranks first with a measured cost; the break in `setup` ran outside the window and costs nothing measured.
"""

import sys

import torch


@torch.compile(backend="eager")
def setup(x):
    y = torch.sin(x)
    torch._dynamo.graph_break()  # once, before the loop
    return y * 2


@torch.compile(backend="eager")
def loop(x):
    y = x * 2
    torch._dynamo.graph_break()  # every iteration
    return torch.tanh(y + 1)


x = setup(torch.randn(64))
for _ in range(int(sys.argv[1]) if len(sys.argv) > 1 else 400):
    x = loop(x)
print("done")
