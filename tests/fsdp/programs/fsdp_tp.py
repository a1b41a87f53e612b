"""FSDP2 + tensor parallelism on a 2x2 device mesh of gloo ranks (DTensor on the CPU): each block's fc1/fc2 are
Colwise/RowwiseParallel over the "tp" dimension, then the block is fully_shard'ed over "dp" and compiled per block.
"""

# differential: kind=distributed timeout=600 nproc=4
import sys

import torch
import torch.distributed as dist
from torch.distributed.device_mesh import init_device_mesh
from torch.distributed.fsdp import fully_shard
from torch.distributed.tensor.parallel import ColwiseParallel, RowwiseParallel, parallelize_module

dist.init_process_group("gloo")
mesh = init_device_mesh("cpu", (2, 2), mesh_dim_names=("dp", "tp"))
torch.manual_seed(0)


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(64, 128)
        self.fc2 = torch.nn.Linear(128, 64)

    def forward(self, x):
        return x + self.fc2(torch.relu(self.fc1(x)))


blocks = torch.nn.ModuleList(Block() for _ in range(2))
for block in blocks:
    parallelize_module(block, mesh["tp"], {"fc1": ColwiseParallel(), "fc2": RowwiseParallel()})
    fully_shard(block, mesh=mesh["dp"])
    block.compile(backend="aot_eager")
opt = torch.optim.SGD(blocks.parameters(), lr=0.01)
x = torch.randn(8, 64)
for step in range(int(sys.argv[1]) if len(sys.argv) > 1 else 8):
    opt.zero_grad()
    y = x
    for block in blocks:
        y = block(y)  # BLOCK CALL
    loss = y.square().mean()
    loss.backward()
    opt.step()
    value = loss.item()
if dist.get_rank() == 0:
    print(f"final loss {value:.4f}")
dist.destroy_process_group()
