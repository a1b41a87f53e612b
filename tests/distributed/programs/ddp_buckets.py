"""A user-defined module under torch.compile(DDP(...)) with 1 MiB buckets, and one real graph break in forward."""

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")
torch.manual_seed(0)


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = torch.nn.ModuleList(torch.nn.Linear(512, 512) for _ in range(4))  # 1.0 MiB each

    def forward(self, x):
        x = self.layers[1](self.layers[0](x)).relu()
        if x.sum() > 0:  # a real graph break: data-dependent branch
            x = x * 2
        return self.layers[3](self.layers[2](x)).relu()


model = torch.compile(DDP(Net(), bucket_cap_mb=1), backend="aot_eager")
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(2):
    optimizer.zero_grad()
    model(torch.randn(8, 512)).sum().backward()
    optimizer.step()
dist.destroy_process_group()
