import torch


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(16, 16)
        self.norm = torch.nn.LayerNorm(16)

    def forward(self, x):
        return self.norm(torch.relu(self.lin(x)) + x)


torch.manual_seed(0)
model = torch.nn.Sequential(Block(), Block())
compiled = torch.compile(model, backend="aot_eager")
opt = torch.optim.SGD(model.parameters(), lr=0.1)
x = torch.randn(8, 16)
for _ in range(3):
    loss = compiled(x).pow(2).mean()
    loss.backward()
    opt.step()
    opt.zero_grad()
print(f"loss {loss.item():.4f}")
