"""A training loop whose model calls .item() every step (BRK002; tdiag's patch keeps the value a tensor)."""
import torch
from torch import nn

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Linear(64, 64), nn.Linear(64, 64)

    def forward(self, x):
        h = torch.relu(self.a(x))
        scale = h.abs().max().item()
        return self.b(h / (scale + 1.0)).sum()


net = Net()
model = torch.compile(net, backend="aot_eager")
opt = torch.optim.SGD(net.parameters(), lr=1e-3)
for _ in range(40):
    model(torch.randn(32, 64)).backward()
    opt.step()
    opt.zero_grad()
print("done")
