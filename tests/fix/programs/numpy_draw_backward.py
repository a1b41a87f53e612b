"""A compiled step that draws its loss scale with numpy and calls backward() itself (two breaks: the backward, which
moves out of the step, and the numpy draw read back as a float, which torch's capture_scalar_outputs hint does not
remove here)."""
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
np.random.seed(0)
model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 1))
opt = torch.optim.SGD(model.parameters(), lr=0.01)


@torch.compile(backend="aot_eager")
def train_step(x, y):
    scale = float(np.random.uniform(0.9, 1.1))
    loss = nn.functional.mse_loss(model(x) * scale, y)
    loss.backward()
    return loss


for i in range(6):
    x, y = torch.randn(16, 10), torch.randn(16, 1)
    loss = train_step(x, y)
    opt.step()
    opt.zero_grad()
    print(f"step {i} loss {loss.item():.4f}")
