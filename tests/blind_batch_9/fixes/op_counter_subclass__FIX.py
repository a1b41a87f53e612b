"""FIX CHECK: count ops with the subclass on the uncompiled model; the compiled model gets plain tensors."""
"""Counting the torch ops a model runs with a __torch_function__ tensor subclass, on the compiled model."""
import collections

import torch
import torch.nn as nn

torch.manual_seed(0)
OP_COUNTS = collections.Counter()


class CountingTensor(torch.Tensor):
    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        OP_COUNTS[getattr(func, "__name__", str(func))] += 1
        return super().__torch_function__(func, types, args, kwargs or {})


class FeedForward(nn.Module):
    def __init__(self, d=32):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.up = nn.Linear(d, 4 * d)
        self.down = nn.Linear(4 * d, d)

    def forward(self, x):
        return x + self.down(torch.nn.functional.gelu(self.up(self.norm(x))))


model = nn.Sequential(*[FeedForward() for _ in range(3)])
cmodel = torch.compile(model, backend="eager")
total = 0.0
for step in range(4):
    x = torch.randn(8, 16, 32)
    with torch.no_grad():
        model(x.as_subclass(CountingTensor)).sum().item()
    out = cmodel(x)
    total += out.sum().item()
print(f"output checksum {total:.4f}")
print("ops per forward:", {k: v // 4 for k, v in sorted(OP_COUNTS.items())})
print(f"distinct ops {len(OP_COUNTS)}, total calls {sum(OP_COUNTS.values())}")
