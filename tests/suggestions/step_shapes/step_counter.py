"""A model that counts its own forward calls in an attribute, for a warmup schedule."""
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(16, 16)
        self.calls = 0

    def forward(self, x):
        self.calls += 1
        warm = min(self.calls / 10.0, 1.0)
        return self.fc(x) * warm


torch.manual_seed(0)
model = torch.compile(Net(), backend="aot_eager")
for i in range(12):
    out = model(torch.randn(4, 16))
    print(f"step {i} {out.sum().item():.4f}")
