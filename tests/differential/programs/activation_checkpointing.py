"""Activation checkpointing (``torch.utils.checkpoint``, non-reentrant) inside a compiled model, trained."""

# differential: kind=script
import torch
from torch.utils.checkpoint import checkpoint

torch.manual_seed(0)


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.ff = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.GELU(), torch.nn.Linear(32, 16))

    def forward(self, x):
        return x + checkpoint(self.ff, x, use_reentrant=False)


model = torch.nn.Sequential(Block(), Block())
cmodel = torch.compile(model, backend="aot_eager")
opt = torch.optim.SGD(model.parameters(), lr=0.01)
x = torch.randn(8, 16)
for step in range(5):
    opt.zero_grad()
    loss = cmodel(x).pow(2).mean()
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 4))
