"""A training step that times itself with time.perf_counter() inside the compiled function."""
import time

import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(10, 32), nn.ReLU(), nn.Linear(32, 1))


@torch.compile(backend="aot_eager")
def forward_timed(x):
    t0 = time.perf_counter()
    out = model(x).sum()
    return out, time.perf_counter() - t0


for i in range(4):
    out, seconds = forward_timed(torch.randn(16, 10))
    print(f"{i} {out.item():.4f}")
