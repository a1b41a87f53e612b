"""A seeded training loop on the CPU whose printed loss is bit-identical run to run (and equal to eager: the backend
is "eager"). LOSS_SHIFT, when set, moves the printed loss by that much: a stand-in for a patch that changes a result."""

import os

import torch

torch.manual_seed(0)
model = torch.nn.Linear(8, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(64, 8), torch.randn(64, 1)
step = torch.compile(lambda: torch.nn.functional.mse_loss(model(x), y), backend="eager")
for epoch in range(3):
    loss = step()
    loss.backward()
    opt.step()
    opt.zero_grad()
    print(f"epoch {epoch} loss {loss.item() + float(os.environ.get('LOSS_SHIFT', 0)):.4f}")
