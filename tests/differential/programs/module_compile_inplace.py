"""``module.compile()`` in place, a submodule compiled separately, called from a compiled function and directly."""

# differential: kind=script
import torch

torch.manual_seed(0)


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = torch.nn.Linear(8, 8)
        self.head = torch.nn.Linear(8, 2)

    def forward(self, x):
        return self.head(self.enc(x).relu())


net = Net()
net.enc.compile(backend="eager")
net.compile(backend="eager")


@torch.compile(backend="eager")
def predict(x):
    return net(x).softmax(-1)


x = torch.randn(5, 8)
for _ in range(3):
    print([round(v, 4) for v in predict(x).sum(0).tolist()], round(net(x).sum().item(), 4))
