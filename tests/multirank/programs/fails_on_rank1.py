"""Both ranks compile a function with a graph break; rank 1 then exits with status 3 (a failing job)."""

import sys

import torch
import torch.distributed as dist

dist.init_process_group("gloo")
rank = dist.get_rank()


def step(x):
    y = x * 2
    print("step")  # graph break on every rank
    return y + 1


torch.compile(step, backend="eager")(torch.ones(3))
dist.barrier()
dist.destroy_process_group()
if rank == 1:
    sys.exit(3)
