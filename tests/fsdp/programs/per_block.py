"""FSDP2 with per-block compile, as torchtitan does it: each block is fully_shard'ed, then compiled with
block.compile(); the model is sharded last. A Python loop with loss.item() outside the compiled code.

MODE=fullgraph compiles each block with fullgraph=True; MODE=whole compiles the whole sharded model instead, and
MODE=whole-fullgraph with fullgraph=True (FSDP2's hooks are torch._dynamo.disable'd: that cannot compile).
STEP_TIMES=PATH writes each rank's step times (seconds, loss.item() syncing the device) to PATH.rank<R>.json.
"""

# differential: kind=distributed timeout=600
import json
import os
import sys
import time

import torch
import torch.distributed as dist
from torch.distributed.fsdp import fully_shard

BACKEND = os.environ.get("BACKEND", "aot_eager")
MODE = os.environ.get("MODE", "blocks")
STEPS = int(sys.argv[1]) if len(sys.argv) > 1 else int(os.environ.get("STEPS", "12"))

dist.init_process_group(os.environ.get("DIST_BACKEND", "gloo"))
device = torch.device("cuda", int(os.environ["LOCAL_RANK"])) if torch.cuda.is_available() else torch.device("cpu")
if device.type == "cuda":
    torch.cuda.set_device(device)
torch.manual_seed(0)
WIDTH = int(os.environ.get("WIDTH", "64"))


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(WIDTH, 2 * WIDTH)
        self.fc2 = torch.nn.Linear(2 * WIDTH, WIDTH)

    def forward(self, x):
        return x + self.fc2(torch.relu(self.fc1(x)))


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = torch.nn.ModuleList(Block() for _ in range(4))
        self.head = torch.nn.Linear(WIDTH, 1)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        return self.head(x)


model = Net().to(device)
for block in model.blocks:
    fully_shard(block)
    if not MODE.startswith("whole"):
        block.compile(backend=BACKEND, fullgraph=MODE == "fullgraph")  # BLOCK COMPILE
fully_shard(model)
whole = MODE.startswith("whole")
step_model = torch.compile(model, backend=BACKEND, fullgraph=MODE == "whole-fullgraph") if whole else model
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
x = torch.randn(16, WIDTH, device=device)
times = []
for step in range(STEPS):
    started = time.perf_counter()
    optimizer.zero_grad()
    loss = step_model(x).square().mean()  # STEP CALL
    loss.backward()
    optimizer.step()
    value = loss.item()
    times.append(time.perf_counter() - started)
if os.environ.get("STEP_TIMES"):
    with open(f"{os.environ['STEP_TIMES']}.rank{dist.get_rank()}.json", "w") as fh:
        json.dump(times, fh)
if dist.get_rank() == 0:
    print(f"final loss {value:.4f}")
dist.destroy_process_group()
