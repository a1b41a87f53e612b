"""A loop over batches whose size alternates (RCP001; tdiag's patch: torch._dynamo.mark_dynamic)."""
import torch
from torch import nn

torch.manual_seed(0)
net = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, 1))
model = torch.compile(net, backend="aot_eager")
for step in range(40):
    x = torch.randn(16 if step % 3 else 24, 32)
    model(x).sum().backward()
print("done")
