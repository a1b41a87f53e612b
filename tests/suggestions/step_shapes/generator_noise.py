"""Noise drawn from the program's own torch.Generator inside the compiled function (a reproducible augmentation)."""
import torch

g = torch.Generator().manual_seed(0)


@torch.compile(backend="aot_eager")
def noisy(x):
    return x + 0.1 * torch.randn(x.shape, generator=g)


for _ in range(4):
    print(f"{noisy(torch.ones(4, 8)).sum().item():.4f}")
