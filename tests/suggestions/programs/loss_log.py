"""A compiled training step that logs its loss before returning it, as tutorials write it: `.item()` and print
inside the compiled function (two graph breaks). The read and the print move after the call: one graph, the same
output."""

import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(8, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)


def train_step(x, y):
    loss = nn.functional.mse_loss(model(x), y)
    val = loss.item()
    print(f"loss {val:.4f}")
    return loss


step = torch.compile(train_step, backend="eager")
for i in range(4):
    x, y = torch.randn(16, 8), torch.randn(16, 1)
    loss = step(x, y)
    loss.backward()
    opt.step()
    opt.zero_grad()
