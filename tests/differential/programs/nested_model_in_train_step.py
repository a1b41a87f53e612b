"""A compiled model inside a compiled training step (``torch.compile(model)`` called from a compiled function that
also runs backward and the optimizer)."""

# differential: kind=script
import torch

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(8, 16), torch.nn.ReLU(), torch.nn.Linear(16, 1))
compiled_model = torch.compile(model, backend="aot_eager")
opt = torch.optim.SGD(model.parameters(), lr=0.05)


@torch.compile(backend="aot_eager")
def train_step(x, y):
    loss = torch.nn.functional.mse_loss(compiled_model(x), y)
    loss.backward()
    return loss.detach()


x, y = torch.randn(16, 8), torch.randn(16, 1)
for step in range(12):
    opt.zero_grad()
    loss = train_step(x, y)
    opt.step()
    if step % 4 == 0:
        print(step, round(loss.item(), 4))
