"""A compiled training step over an nn.Sequential that logs its loss from inside the compiled function."""

import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(16, 32), nn.GELU(), nn.LayerNorm(32), nn.Linear(32, 4))
opt = torch.optim.SGD(model.parameters(), lr=0.01)


@torch.compile(backend="aot_eager")
def train_step(x, y):
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    value = loss.item()  # EXPECT: .item() in the compiled step
    print(f"loss {value:.4f}")  # EXPECT: print in the compiled step
    return loss


for _ in range(3):
    train_step(torch.randn(8, 16), torch.randint(0, 4, (8,)))
    opt.step()
    opt.zero_grad()
