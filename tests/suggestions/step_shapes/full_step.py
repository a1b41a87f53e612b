"""The whole training step compiled: forward, backward, clipping, optimizer and scheduler steps."""
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(16, 64), nn.ReLU(), nn.Linear(64, 1))
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=5, gamma=0.5)


@torch.compile(backend="aot_eager")
def train_step(x, y):
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    sched.step()
    opt.zero_grad()
    return loss


for i in range(12):
    loss = train_step(torch.randn(32, 16), torch.randn(32, 1))
    print(f"step {i} loss {loss.item():.4f}")
