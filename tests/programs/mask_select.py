"""A masked mean selected with a boolean mask: torch breaks at `x[mask]` (aten.nonzero, a data-dependent size)."""
import torch


@torch.compile(backend="eager")
def observed_mean(x, observed):
    return x[observed].mean()


torch.manual_seed(0)
for _ in range(2):
    print(f"{observed_mean(torch.randn(8), torch.rand(8) > 0.3).item():.4f}")
