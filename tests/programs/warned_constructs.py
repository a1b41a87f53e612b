"""Two constructs torch warns about while compiling, each at a user line: a global module hook with a module compiled
by torch.compile(module) (the hook fires twice), and torch.cond with a Python constant as its predicate."""

import torch
from torch import nn

calls = []
handle = nn.modules.module.register_module_forward_hook(lambda mod, args, out: calls.append(type(mod).__name__))
model = torch.compile(nn.Linear(4, 4), backend="eager")
model(torch.ones(2, 4))  # HOOKED CALL
handle.remove()
print("hook calls:", len(calls))


@torch.compile(backend="eager")
def pick(x, flag: bool):
    return torch.cond(flag, lambda t: t + 1, lambda t: t - 1, (x,))  # CONSTANT PRED


print(float(pick(torch.ones(3), True).sum()))
