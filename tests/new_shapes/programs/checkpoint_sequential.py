"""Activation checkpointing as torch.utils.checkpoint's docs show: a deep nn.Sequential run in segments with
checkpoint_sequential, inside a compiled model."""

import torch
from torch.utils.checkpoint import checkpoint_sequential

torch.manual_seed(0)


class Deep(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = torch.nn.Sequential(*[torch.nn.Sequential(torch.nn.Linear(32, 32), torch.nn.Tanh())
                                            for _ in range(4)])

    def forward(self, x):
        return checkpoint_sequential(self.layers, 2, x, use_reentrant=False)  # EXPECT: checkpointed segments


model = Deep()
compiled = torch.compile(model, backend="aot_eager")
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 32)
for _ in range(3):
    opt.zero_grad()
    loss = compiled(x).pow(2).mean()
    loss.backward()
    opt.step()
print(f"loss {loss.item():.4f}")
