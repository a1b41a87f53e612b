"""Sequential activation checkpointing as torch.utils.checkpoint's docs show it."""
import torch
from torch.utils.checkpoint import checkpoint_sequential

torch.manual_seed(0)
model = torch.nn.Sequential(*[torch.nn.Sequential(torch.nn.Linear(32, 32), torch.nn.ReLU()) for _ in range(4)])
opt = torch.optim.SGD(model.parameters(), lr=0.01)


@torch.compile(backend="aot_eager")
def forward(x):
    return checkpoint_sequential(model, 2, x, use_reentrant=False)


for step in range(4):
    x = torch.randn(16, 32, requires_grad=True)
    loss = forward(x).pow(2).mean()
    loss.backward()
    opt.step()
    opt.zero_grad()
print(f"loss {loss.item():.4f}")
