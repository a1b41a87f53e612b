"""A compiled model trained with the loss and a for-loop optimizer (Adam, foreach=False) outside it, its inputs
made each step with torch.randn.

Expected: no break, no recompile; most of each step is the eager optimizer step (82 small tensors, one loop over
them) with the loss and its backward beside it, work the program can compile or make cheaper: RUN001 names it, with
the optimizer fix, and leaves out the input preparation, which it does not count.
"""

import sys

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(*[nn.Linear(8, 8) for _ in range(40)], nn.Linear(8, 4))
compiled = torch.compile(model, backend="aot_eager")
opt = torch.optim.Adam(model.parameters(), lr=1e-3, foreach=False)
for step in range(int(sys.argv[1]) if len(sys.argv) > 1 else 14):
    x = torch.randn(16, 8)
    y = torch.randint(0, 4, (16,))
    loss = F.cross_entropy(compiled(x), y)  # CALL
    loss.backward()
    opt.step()
    opt.zero_grad()
print(f"done {loss.item():.4f}")
