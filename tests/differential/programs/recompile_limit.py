"""A function recompiled for every new Python int until the recompile limit, then run eagerly."""

# differential: kind=script
import torch
import torch._dynamo

torch._dynamo.config.recompile_limit = 4


@torch.compile(backend="eager")
def f(x, n):
    return x + n


print([f(torch.zeros(1), n).item() for n in range(8)])
