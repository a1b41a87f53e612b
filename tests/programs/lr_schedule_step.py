"""A training step compiled whole, as a user first writes it: SGD's learning rate a Python float that an LR scheduler
changes after every step (torch guards `param_groups[0]['lr']` in SGD.step and recompiles it), and a float computed
inside the compiled function from `.item()` that lives on across the graph break (torch guards it by a stack slot of
the resumed function, a name the user's code does not have)."""

import torch

torch.manual_seed(0)
model = torch.nn.Linear(8, 8)
opt = torch.optim.SGD(model.parameters(), lr=0.1)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.9)


@torch.compile(backend="eager")
def train_step(x):
    loss = model(x).square().mean()
    scale = 1.0 / (1.0 + loss.item())
    loss = loss * scale
    loss.backward()
    opt.step()
    opt.zero_grad()
    return loss


x = torch.randn(4, 8)
for step in range(8):
    loss = train_step(x)
    sched.step()
print(f"loss {loss.item():.4f}")
