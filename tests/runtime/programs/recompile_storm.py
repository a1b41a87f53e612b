"""A shape recompile on every step: with dynamic=False each new batch size compiles again, inside the window too.

Expected: compiles happen inside the measured window; the recompile finding's cost is measured compile time there.
"""

import torch


@torch.compile(backend="eager", dynamic=False)
def step(x):
    return (x * 2).sum()


torch._dynamo.config.recompile_limit = 64
for n in (8, 8, 8, 8, 8, 8, 8):  # settles on one shape first
    step(torch.randn(n))
for n in range(9, 40):  # then a new shape every step: a recompile storm
    step(torch.randn(n))
