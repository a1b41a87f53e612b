# Source: graph-break registry entry GB0123 "Unsupported Tensor.backward() call" (torch/_dynamo/graph_break_registry.json);
# a whole training step (forward + loss.backward() + optimizer step) under torch.compile.
# Exact torch test name not verified.
import torch

torch.manual_seed(0)
model = torch.nn.Linear(4, 1)
opt = torch.optim.SGD(model.parameters(), lr=0.1)


@torch.compile(backend="eager")
def train_step(x, y):
    opt.zero_grad()
    loss = torch.nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    return loss


x, y = torch.randn(8, 4), torch.randn(8, 1)
for _ in range(3):
    loss = train_step(x, y)
print("loss:", round(loss.item(), 4))
