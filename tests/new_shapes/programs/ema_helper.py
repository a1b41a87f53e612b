"""An exponential moving average of the weights with a warm-up decay, as EMA helpers (timm's ModelEmaV2 style) write
it, the update compiled."""

import torch

torch.manual_seed(0)
model = torch.nn.Linear(16, 16)
ema = torch.nn.Linear(16, 16)
ema.load_state_dict(model.state_dict())
opt = torch.optim.SGD(model.parameters(), lr=0.1)


@torch.compile(backend="eager")
def ema_update(decay):
    with torch.no_grad():
        for e, p in zip(ema.parameters(), model.parameters()):
            e.mul_(decay).add_(p, alpha=1 - decay)


x = torch.randn(8, 16)
for step in range(6):
    opt.zero_grad()
    model(x).pow(2).mean().backward()
    opt.step()
    decay = min(0.999, (1 + step) / (10 + step))
    ema_update(decay)  # EXPECT: the decay changes every step
print(f"ema weight sum {ema.weight.sum().item():.4f}")
