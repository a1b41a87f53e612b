"""``torch.compiler.disable`` helpers (a function and a module method) called inside compiled code."""

# differential: kind=script
import torch

torch.manual_seed(0)


@torch.compiler.disable
def log_stats(t):
    return float(t.abs().mean())


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(6, 6)
        self.b = torch.nn.Linear(6, 6)

    @torch.compiler.disable(recursive=False)
    def side(self, x):
        return x.clamp(-1, 1)

    def forward(self, x):
        h = self.a(x).relu()
        stat = log_stats(h)
        h = self.side(h)
        return self.b(h) * stat


net = torch.compile(Net(), backend="eager")
for i in range(6):
    print(i, round(net(torch.randn(3, 6)).sum().item(), 4))
