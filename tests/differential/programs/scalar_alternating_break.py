"""A training-style loop with a ``.item()`` break, a print in compiled code, and a Python float that alternates
(the non-nested cousin of the issue-20 case)."""

# differential: kind=script
import torch

torch.manual_seed(0)
w = torch.randn(8, 8)


@torch.compile(backend="eager")
def step(x, lr):
    h = (x @ w).tanh()
    norm = h.norm().item()
    print("norm computed")
    return h * lr / (1 + norm)


x = torch.randn(4, 8)
for i in range(10):
    out = step(x, 0.1 if i % 2 else 0.2)
print(round(out.sum().item(), 4))
