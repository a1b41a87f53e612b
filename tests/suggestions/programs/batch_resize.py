import torch


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(8, 4)

    def forward(self, x):
        return torch.relu(self.lin(x)).sum()


if __name__ == "__main__":
    torch.manual_seed(0)
    net = Net()
    compiled = torch.compile(net, backend="aot_eager")
    for batch in (4, 8, 6):
        loss = compiled(torch.randn(batch, 8))
        loss.backward()
        print(round(loss.item(), 4))
