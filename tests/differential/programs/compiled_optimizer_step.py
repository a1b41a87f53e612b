"""A compiled optimizer step beside a compiled model, with an LR scheduler changing the learning rate."""

# differential: kind=script
import torch

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.Tanh(), torch.nn.Linear(8, 1))
cmodel = torch.compile(model, backend="aot_eager")
opt = torch.optim.Adam(model.parameters(), lr=torch.tensor(0.01))
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.5)


@torch.compile(backend="eager")
def opt_step():
    opt.step()


x, y = torch.randn(32, 8), torch.randn(32, 1)
for step in range(8):
    opt.zero_grad()
    loss = torch.nn.functional.mse_loss(cmodel(x), y)
    loss.backward()
    opt_step()
    sched.step()
    print(step, round(loss.item(), 4))
