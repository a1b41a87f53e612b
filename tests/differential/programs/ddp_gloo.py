"""Two ranks of DDP over gloo on the CPU, the DDP-wrapped model compiled (DDPOptimizer splits at buckets)."""

# differential: kind=distributed timeout=600
import os

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(0)
model = torch.nn.Sequential(*[torch.nn.Linear(256, 256) for _ in range(6)])
ddp = DDP(model, bucket_cap_mb=1)
cmodel = torch.compile(ddp, backend="aot_eager")
opt = torch.optim.SGD(model.parameters(), lr=0.01)
torch.manual_seed(1 + rank)
x = torch.randn(8, 256)
for step in range(4):
    opt.zero_grad()
    loss = cmodel(x).pow(2).mean()
    loss.backward()
    opt.step()
    if rank == 0:
        print(step, round(loss.item(), 4))
dist.destroy_process_group()
print(f"rank {rank} done", os.environ.get("WORLD_SIZE")) if rank == 0 else None
