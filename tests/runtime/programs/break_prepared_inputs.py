"""Nine steps of a compiled model with a data-dependent branch in its forward (a graph break), its inputs made each
step with torch.randn.

Expected: one graph break at the branch, which is the first finding; the inputs' preparation, most of each step, is
the program's own and makes no RUN001 finding.
"""

import sys

import torch
from torch import nn


class Gate(nn.Module):
    def __init__(self):
        super().__init__()
        self.inp = nn.Linear(64, 8)
        self.out = nn.Linear(8, 2)

    def forward(self, x):
        h = self.inp(x)
        if h.mean() > 0:  # BRANCH
            h = h.relu()
        return self.out(h)


torch.manual_seed(0)
model = torch.compile(Gate(), backend="eager")
total = 0.0
with torch.no_grad():
    for step in range(int(sys.argv[1]) if len(sys.argv) > 1 else 9):
        x = torch.randn(4096, 64) + torch.arange(64) / 64
        total += float(model(x).sum())
print(f"done {total:.4f}")
