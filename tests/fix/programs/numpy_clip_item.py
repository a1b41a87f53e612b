"""A compiled function that scales its output by a statistic clipped with NumPy: `.item()` reads the mean out, np.clip
bounds it. torch breaks at `.item()` and hints capture_scalar_outputs; with it set, the same statement still breaks
(np.clip cannot take the captured scalar), though the recompiles on the value carried across the break are gone."""
import numpy as np
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(16, 16)


@torch.compile(backend="eager")
def scaled(x):
    y = model(x)
    scale = float(np.clip(y.abs().mean().item(), 0.1, 1.0))
    return y * scale


for i in range(12):
    out = scaled(torch.randn(8, 16) * (1 + i))
    print(f"step {i} {out.sum().item():.4f}")
