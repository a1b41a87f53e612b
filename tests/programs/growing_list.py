"""A module that keeps a Python list of what each call saw, inside the compiled forward: Dynamo guards on the
list's length, so every call recompiles (until the recompile limit)."""

import torch
from torch import nn


class Tracker(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(4, 4)
        self.seen = []

    def forward(self, x):
        y = self.lin(x)
        self.seen.append(1)
        return y * len(self.seen)


model = torch.compile(Tracker(), backend="eager")
for _ in range(4):
    model(torch.ones(2, 4))  # CALL
print("calls", len(model.seen))
