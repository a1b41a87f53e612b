"""A regression loss over the observed entries only (a mask of missing values)."""
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Linear(6, 6)


@torch.compile(backend="aot_eager")
def observed_mse(x, target, observed):
    err = (model(x) - target) ** 2
    return err[observed].mean()


for i in range(4):
    x, target = torch.randn(16, 6), torch.randn(16, 6)
    observed = torch.rand(16, 6) > 0.2
    print(f"step {i} loss {observed_mse(x, target, observed).item():.5f}")
