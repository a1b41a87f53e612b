"""FIX: ScheduledDropout keeps the rate in a buffer (a tensor, set with p.fill_()), so a new rate is new data for the same graph, not a new constant.
"Early dropout" (Liu et al., 2023, "Dropout Reduces Underfitting"): the dropout rate decays linearly from 0.1 to 0
over the first iterations and stays 0 after, set on every nn.Dropout before each step the way the paper's code does it
(`update_dropout(model, drop_rate)` walks model.modules() and sets `module.p`). The model is compiled once."""
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
TOTAL_STEPS, EARLY_STEPS, DROP_RATE = 96, 32, 0.1


class ScheduledDropout(nn.Module):
    """Inverted dropout whose rate is a buffer."""

    def __init__(self, p):
        super().__init__()
        self.register_buffer("p", torch.tensor(p))

    def forward(self, x):
        if not self.training:
            return x
        keep = torch.rand_like(x) >= self.p
        return x * keep / (1 - self.p)


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(32, 128), nn.GELU(), ScheduledDropout(DROP_RATE),
            nn.Linear(128, 128), nn.GELU(), ScheduledDropout(DROP_RATE),
            nn.Linear(128, 6),
        )

    def forward(self, x):
        return self.net(x)


def drop_scheduler(drop_rate, total_steps, early_steps):
    early = torch.linspace(drop_rate, 0.0, early_steps).tolist()
    return early + [0.0] * (total_steps - early_steps)


def update_dropout(model, drop_rate):
    for module in model.modules():
        if isinstance(module, ScheduledDropout):
            module.p.fill_(drop_rate)


def main():
    model = Classifier()
    compiled = torch.compile(model, backend="aot_eager")
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3)
    schedule = drop_scheduler(DROP_RATE, TOTAL_STEPS, EARLY_STEPS)
    x = torch.randn(3072, 32)
    y = (x[:, :6] + 0.5 * x[:, 6:12]).argmax(1)
    for step in range(TOTAL_STEPS):
        update_dropout(model, schedule[step])
        i = step % 24 * 128
        loss = F.cross_entropy(compiled(x[i:i + 128]), y[i:i + 128])
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 16 == 15:
            print(f"step {step + 1} drop {schedule[step]:.4f} loss {loss.item():.4f}")
    model.eval()
    with torch.no_grad():
        print(f"train accuracy {(compiled(x).argmax(1) == y).float().mean().item():.4f}")


if __name__ == "__main__":
    main()
