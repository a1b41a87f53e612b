"""torch._dynamo.reset() between two compiles, with a compile callback of the program's own.

reset() clears every compile callback (torch's documented behaviour): the program's own callback fires for the first
compile only, with or without tdiag. After the reset, f compiles again from scratch."""

import torch
from torch._dynamo.callback import on_compile_start

seen = []


@on_compile_start
def mine(args=None):
    seen.append("start")


@torch.compile(backend="eager")
def f(x):
    return x.sin() + 1


print(f(torch.ones(3)).sum().item())
torch._dynamo.reset()
print(f(torch.ones(3)).sum().item())
print("own callback fired", len(seen), "time(s)")
