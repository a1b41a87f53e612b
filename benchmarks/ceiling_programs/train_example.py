"""tdiag's own example (examples/train.py) with step timing: a branch on a tensor value (BRK001), `.item()`
(BRK002), a batch size that changes (RCP001), the SGD step eager."""

import argparse

import torch
from _timing import StepTimer
from torch import nn


class Gate(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        h = torch.relu(self.proj(x))
        if h.mean() > 0.5:  # data-dependent branch: a graph break (BRK001)
            h = h * 0.5
        else:
            h = h + 0.1
        return h


class Model(nn.Module):
    def __init__(self, dim: int = 32):
        super().__init__()
        self.gate = Gate(dim)
        self.head = nn.Linear(dim, 1)

    def forward(self, x):
        h = self.gate(x)
        scale = h.abs().max().item()  # .item(): a graph break (BRK002)
        return self.head(h / (scale + 1.0)).squeeze(-1)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=12)
    parser.add_argument("--backend", default="aot_eager")
    parser.add_argument("--device", default="cpu")
    args = parser.parse_args()

    torch.manual_seed(0)
    model = Model().to(args.device)
    timer = StepTimer(warmup=9, device=args.device)
    compiled = torch.compile(model, backend=args.backend)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for epoch in range(args.epochs):
        for batch in (16, 16, 24):  # the last batch is smaller/larger: a recompile (RCP001)
            x = torch.randn(batch, 32, device=args.device)
            y = torch.randn(batch, device=args.device)
            timer.start()
            loss = nn.functional.mse_loss(compiled(x), y)
            loss.backward()
            opt.step()
            opt.zero_grad()
            timer.stop()
        print(f"epoch {epoch}: loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
