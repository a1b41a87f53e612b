"""A compiled model called in a loop, its inputs made each step with torch.randn and a batch stacked from samples.

Expected: one graph, no break, no recompile (torch's own trace says so). Making the inputs is the program's own work
and most of each step: tdiag reports it as input preparation and has no RUN001 finding.
"""

import sys

import torch
from torch import nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(64, 8), nn.ReLU(), nn.Linear(8, 2))
compiled = torch.compile(model, backend="eager")
total = 0.0
with torch.no_grad():
    for step in range(int(sys.argv[1]) if len(sys.argv) > 1 else 30):
        samples = [torch.randn(64) for _ in range(256)]  # a batch built from samples, each step
        batch = torch.stack(samples)
        noise = torch.randn(2048, 64)
        x = torch.cat([batch, noise]) * 0.5 + torch.linspace(0, 1, 64)
        out = compiled(x)  # CALL
        total += float(out.mean())
print(f"done {total:.4f}")
