"""FSDP2 (fully_shard per layer and on the model) under torch.compile of the whole model, two gloo ranks.

FSDP2 runs its hooks under torch._dynamo.disable ("skipping FSDP hooks"): each call of a sharded layer is a graph
break, and inside the loop over layers that makes Dynamo skip the whole forward. FIX=1 compiles each layer before
sharding it instead.
"""

import os

import torch
import torch.distributed as dist
from torch.distributed.fsdp import fully_shard

dist.init_process_group("gloo")
torch.manual_seed(0)


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = torch.nn.ModuleList(torch.nn.Linear(64, 64) for _ in range(3))

    def forward(self, x):
        for layer in self.layers:
            x = torch.relu(layer(x))  # SHARDED CALL
        return x


model = Net()
if os.environ.get("FIX") == "1":  # compile each block, then shard it: FSDP's hooks run between compiled blocks
    for i, layer in enumerate(model.layers):
        model.layers[i] = torch.compile(layer, backend="aot_eager")
for layer in model.layers:
    fully_shard(layer)
fully_shard(model)
compiled = model if os.environ.get("FIX") == "1" else torch.compile(model, backend="aot_eager")
optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
for _ in range(2):
    optimizer.zero_grad()
    compiled(torch.randn(8, 64)).sum().backward()  # CALL LINE
    optimizer.step()
dist.destroy_process_group()
