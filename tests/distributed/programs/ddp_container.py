"""torch.compile(DDP(nn.Sequential)) on two gloo ranks: Dynamo compiles no graph (torch-hooks.md section 7)."""

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")
torch.manual_seed(0)
net = torch.nn.Sequential(torch.nn.Linear(32, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4))
model = torch.compile(DDP(net), backend="aot_eager")
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(2):
    optimizer.zero_grad()
    model(torch.randn(8, 32)).sum().backward()
    optimizer.step()
dist.destroy_process_group()
