"""An EMA update whose decay warms up each step (a float argument that keeps changing)."""
import torch

torch.manual_seed(0)
model = torch.nn.Linear(16, 16)
ema = [p.detach().clone() for p in model.parameters()]


@torch.compile(backend="aot_eager")
def ema_update(ema_params, params, decay):
    for e, p in zip(ema_params, params):
        e.mul_(decay).add_(p.detach(), alpha=1 - decay)


for step in range(1, 13):
    decay = min(0.999, (1 + step) / (10 + step))
    ema_update(ema, list(model.parameters()), decay)
print(f"ema {sum(e.sum() for e in ema).item():.6f}")
