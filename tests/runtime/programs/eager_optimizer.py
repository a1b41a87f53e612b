"""A compiled model trained with an eager, for-loop optimizer over many small parameters (Adam, foreach=False).

Expected: most of each step runs outside compiled code in the optimizer step; RUN001 says so, with a measured cost
and the optimizer fix (compile the optimizer step, or foreach/fused).
"""

import sys

import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(*[nn.Linear(4, 4) for _ in range(40)])
compiled = torch.compile(model, backend="eager")
opt = torch.optim.Adam(model.parameters(), lr=1e-3, foreach=False)
x = torch.randn(2, 4)
for _ in range(int(sys.argv[1]) if len(sys.argv) > 1 else 12):
    loss = compiled(x).sum()
    loss.backward()
    opt.step()
    opt.zero_grad()
print("done")
