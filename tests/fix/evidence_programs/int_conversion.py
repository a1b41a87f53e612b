"""Attention scores whose maximum is taken to a Python int with `int(...)` inside the compiled function: torch reports
it as Tensor.item (a graph break), though the line has no `.item()` to rewrite."""

import torch


def attend(q, k):
    scores = q @ k.transpose(-1, -2)
    peak = int(scores.abs().max() * 10)
    return torch.softmax(scores, -1), peak


torch.manual_seed(0)
f = torch.compile(attend, backend="eager")
for _ in range(3):
    out, peak = f(torch.randn(2, 4, 8), torch.randn(2, 4, 8))
print(f"{out.sum().item():.4f} {peak}")
