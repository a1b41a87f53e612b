"""A step that seeds torch's RNG itself, so that its dropout is reproducible per step."""
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(8, 16), nn.Dropout(0.1), nn.Linear(16, 1))


@torch.compile(backend="aot_eager")
def step(x, i):
    torch.manual_seed(i)
    return model(x).sum()


for i in range(4):
    print(f"{step(torch.ones(4, 8), i).item():.4f}")
