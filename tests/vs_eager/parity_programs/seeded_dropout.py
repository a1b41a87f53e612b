"""A seeded MLP with dropout compiled by Inductor (its model an nn.Sequential, whose forward is torch's): Inductor
draws its own random numbers for the dropout masks, so the compiled losses are not eager's."""

import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Dropout(p=0.3), nn.Linear(16, 1))
model = torch.compile(model)
opt = torch.optim.SGD(model.parameters(), lr=0.05)
x, y = torch.randn(32, 8), torch.randn(32, 1)
for step in range(3):
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    opt.zero_grad()
    print(f"step {step} loss {loss.item():.5f}")
