"""A model whose forward reads an optional batch key with try/except KeyError: Dynamo compiles the except branch for
the first batch (no key) and reuses that graph for batches that have it."""

import torch
import torch.nn as nn
torch.manual_seed(0)
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 1)
    def forward(self, batch):
        x = batch["x"]
        try:
            age = batch["user_age"]
        except KeyError:
            age = torch.zeros(x.shape[0], 1)
        return self.lin(x) + age
m = torch.compile(M(), backend="eager")
tot = 0.0
for i in range(6):
    b = {"x": torch.randn(4, 8)}
    if i % 2: b["user_age"] = torch.full((4, 1), 10.0)
    tot += float(m(b).sum().detach())
print(f"total {tot:.4f}")
