import time

import torch


@torch.compile(backend="eager")
def timed(x):
    y = x.sin()
    stamp = time.perf_counter_ns()
    return y + (stamp > 0)


print(timed(torch.zeros(2)).tolist())
