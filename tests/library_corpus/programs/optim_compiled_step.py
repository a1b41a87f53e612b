"""torch.optim's step compiled as torch's "Compiling the optimizer" tutorial shows: `@torch.compile def fn():
opt.step()`, called after each backward."""

import torch

torch.manual_seed(0)
model = torch.nn.Sequential(*[torch.nn.Linear(32, 32) for _ in range(4)])
opt = torch.optim.Adam(model.parameters(), lr=torch.tensor(0.01))


@torch.compile(backend="eager")
def fn():
    opt.step()


x = torch.randn(8, 32)
for step in range(24):
    loss = model(x).square().mean()
    loss.backward()
    fn()
    opt.zero_grad()
print(f"loss {loss.item():.4f}")
