"""A compiled training step that calls backward() itself, as a first compiled training loop is often written."""
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.01)


@torch.compile(backend="aot_eager")
def train_step(x, y):
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    return loss


for i in range(6):
    x, y = torch.randn(16, 10), torch.randn(16, 1)
    loss = train_step(x, y)
    opt.step()
    opt.zero_grad()
    print(f"step {i} loss {loss.item():.4f}")
