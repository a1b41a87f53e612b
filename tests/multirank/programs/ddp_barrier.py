"""Two-rank DDP training on gloo: compiled step, a few steps, barrier, destroy_process_group."""
import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")
torch.manual_seed(0)
model = DDP(torch.nn.Linear(8, 4))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)


def loss_fn(x):
    return model(x).pow(2).mean()


compiled = torch.compile(loss_fn, backend="aot_eager")
for _ in range(4):
    optimizer.zero_grad()
    compiled(torch.randn(4, 8)).backward()
    optimizer.step()
dist.barrier()
dist.destroy_process_group()
