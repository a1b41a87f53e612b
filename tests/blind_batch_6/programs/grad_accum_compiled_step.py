"""Gradient accumulation, with the whole training step compiled: forward, loss scaled by 1/ACCUM, backward, and
the optimizer step + zero_grad every ACCUM micro-batches, decided inside the step by
`if (step + 1) % ACCUM == 0`, as gradient-accumulation tutorials write the loop body."""
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
ACCUM, MICRO, N_CLASSES = 4, 32, 5


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(20, 128), nn.LayerNorm(128), nn.GELU(), nn.Linear(128, 128), nn.GELU(),
                                 nn.Linear(128, N_CLASSES))

    def forward(self, x):
        return self.net(x)


model = Classifier()
optimizer = torch.optim.AdamW(model.parameters(), lr=2e-3)


@torch.compile(backend="aot_eager")
def train_step(x, y, step):
    loss = F.cross_entropy(model(x), y) / ACCUM
    loss.backward()
    if (step + 1) % ACCUM == 0:
        optimizer.step()
        optimizer.zero_grad(set_to_none=True)
    return loss.detach() * ACCUM


def main():
    w = torch.randn(20, N_CLASSES)
    x_all = torch.randn(4096, 20)
    y_all = (x_all @ w + 0.5 * torch.randn(4096, N_CLASSES)).argmax(1)
    step = 0
    for epoch in range(3):
        total = 0.0
        for i in range(0, 2048, MICRO):
            loss = train_step(x_all[i:i + MICRO], y_all[i:i + MICRO], step)
            total += loss.item()
            step += 1
        print(f"epoch {epoch} mean loss {total / (2048 // MICRO):.4f}")
    with torch.no_grad():
        acc = (model(x_all[2048:]).argmax(1) == y_all[2048:]).float().mean().item()
    print(f"held-out accuracy {acc:.3f} after {step // ACCUM} optimizer steps")


if __name__ == "__main__":
    main()
