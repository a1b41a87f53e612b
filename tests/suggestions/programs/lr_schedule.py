"""A compiled optimizer step under a learning-rate schedule: each new lr recompiles Adam.step (pytorch#133898)."""

import torch
from torch import nn

torch.manual_seed(0)
model = nn.Linear(8, 8)
opt = torch.optim.Adam(model.parameters(), lr=0.01)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)


@torch.compile(backend="eager")
def step():
    opt.step()


for i in range(5):
    loss = model(torch.ones(2, 8)).sum()
    loss.backward()
    step()
    opt.zero_grad()
    sched.step()
    print([round(v, 4) for v in model.weight[0].tolist()])
