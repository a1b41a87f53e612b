"""An integer counter on an nn.Module, changed by every call: each new value recompiles forward (pytorch#128319)."""

import torch
from torch import nn


class Counter(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        return self.proj(x) * self.calls


if __name__ == "__main__":
    torch.manual_seed(0)
    model = Counter()
    compiled = torch.compile(model, backend="eager")
    for _ in range(6):
        out = compiled(torch.ones(2, 4))
        print([round(v, 4) for v in out.flatten().tolist()])
