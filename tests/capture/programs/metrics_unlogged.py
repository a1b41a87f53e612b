"""torch cannot write its compilation metrics for this program's compiles: a config value it json-dumps holds a
function. On torch 2.11 `torch._dynamo.config.ignore_logger_methods.add(logger.warning_once)` (a patch tdiag itself
offered) does this; on later releases that name is left out of the dump, so a list torch still dumps stands in."""

import torch

torch._dynamo.config._autograd_backward_strict_mode_conditional_banned_ops.append(print)


@torch.compile(backend="eager")
def f(x):
    if x.sum() > 0:  # one break: two graphs
        x = x * 2
    return x.sin() + 1


for _ in range(3):
    print(round(f(torch.ones(3)).sum().item(), 4))
print("graphs", torch._dynamo.utils.counters["stats"]["unique_graphs"])
