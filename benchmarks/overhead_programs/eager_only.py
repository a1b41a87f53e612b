"""A training loop that never calls torch.compile: under tdiag it must cost what tdiag itself costs, not Dynamo's
import (tdiag's Dynamo hooks wait for the program to import torch._dynamo)."""

import torch
from torch import nn


def main() -> None:
    torch.manual_seed(0)
    model = nn.Sequential(nn.Linear(64, 64), nn.ReLU(), nn.LayerNorm(64), nn.Linear(64, 1))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    for _ in range(200):
        loss = model(torch.randn(32, 64)).pow(2).mean()
        loss.backward()
        opt.step()
        opt.zero_grad()
    print(f"loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
