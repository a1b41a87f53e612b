import torch


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(8, 4)

    def forward(self, x):
        return torch.relu(self.lin(x)).sum()


net = Net()
compiled = torch.compile(net, backend="aot_eager")
for batch in (4, 8):
    loss = compiled(torch.randn(batch, 8))
    loss.backward()
print("done")
