"""A forward that sums a per-layer statistic as a Python float inside its layer loop: the `.item()` breaks the graph
in a loop body, where Dynamo cannot resume, so it skips the whole forward (BRK006), and nothing compiles."""

import torch
from torch import nn


class Stack(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(16, 16) for _ in range(3))

    def forward(self, x):
        total = 0.0
        for layer in self.layers:
            x = torch.relu(layer(x))
            total += x.abs().mean().item()
        return x, total


torch.manual_seed(0)
model = Stack()
cmodel = torch.compile(model, backend="eager")
for _step in range(6):
    out, total = cmodel(torch.randn(4, 16))
print(f"{out.sum().item():.4f} {total:.4f}")
