"""A small training script with the graph breaks and recompilations real models have.

    tdiag run examples/train.py

Runs in seconds on a CPU. Each problem is marked with what tdiag should report for it.
"""

import argparse

import torch
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
    parser.add_argument("--epochs", type=int, default=4)  # 12 steps: enough for a measured window
    parser.add_argument("--backend", default="aot_eager")
    args = parser.parse_args()

    torch.manual_seed(0)
    model = Model()
    compiled = torch.compile(model, backend=args.backend)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for epoch in range(args.epochs):
        for batch in (16, 16, 24):  # the last batch is smaller/larger: a recompile (RCP001)
            x = torch.randn(batch, 32)
            y = torch.randn(batch)
            loss = nn.functional.mse_loss(compiled(x), y)
            loss.backward()
            opt.step()
            opt.zero_grad()
        print(f"epoch {epoch}: loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
