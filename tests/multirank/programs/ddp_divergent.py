"""Two-rank DDP training on gloo where rank 1 alone calls .item() inside the compiled step: a rank-only break."""

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")
rank = dist.get_rank()
torch.manual_seed(0)
model = DDP(torch.nn.Linear(8, 4))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)


def loss_fn(x):
    out = model(x)
    if rank == 1:
        peak = out.max().item()  # rank 1 only: graph break
        out = out / (1.0 + abs(peak))
    return out.pow(2).mean()


compiled = torch.compile(loss_fn, backend="aot_eager")
for _ in range(2):
    optimizer.zero_grad()
    compiled(torch.randn(4, 8)).backward()
    optimizer.step()
dist.destroy_process_group()
