"""A training loop whose model branches on a tensor value every step (BRK001; tdiag's patch: torch.where)."""
import torch
from torch import nn

torch.manual_seed(0)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.a, self.b = nn.Linear(64, 64), nn.Linear(64, 64)

    def forward(self, x):
        h = torch.relu(self.a(x))
        if h.mean() > 0.5:
            h = h * 0.5
        else:
            h = h + 0.1
        return self.b(h).sum()


net = Net()
model = torch.compile(net, backend="aot_eager")
opt = torch.optim.SGD(net.parameters(), lr=1e-3)
for _ in range(40):
    model(torch.randn(32, 64)).backward()
    opt.step()
    opt.zero_grad()
print("done")
