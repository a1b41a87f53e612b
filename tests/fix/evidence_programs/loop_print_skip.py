"""A progress print in the layer loop of a forward: the print breaks the graph in a loop body, where Dynamo cannot
resume, so it skips the whole forward (BRK006)."""

import torch
from torch import nn


class Stack(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.ModuleList(nn.Linear(8, 8) for _ in range(2))

    def forward(self, x):
        for i, layer in enumerate(self.layers):
            x = layer(x)
            print("layer", i, "done")
        return x


model = Stack()
cmodel = torch.compile(model, backend="eager")
for _ in range(3):
    y = cmodel(torch.randn(2, 8))
print(y.shape)
