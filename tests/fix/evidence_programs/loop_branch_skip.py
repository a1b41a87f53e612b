"""A residual stack whose forward loops over its layers and branches on a tensor inside the loop: Dynamo cannot
resume after a graph break in a loop body, so it skips the whole forward (BRK006), and nothing compiles."""

import torch
from torch import nn


class Stack(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(16, 16) for _ in range(3))

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
            if x.mean() > 0:
                x = torch.relu(x)
        return x


torch.manual_seed(0)
model = Stack()
cmodel = torch.compile(model, backend="eager")
for _step in range(6):
    out = cmodel(torch.randn(4, 16))
print(f"{out.sum().item():.4f}")
