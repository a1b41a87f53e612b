"""The MLP of issue 23: nn.Sequential of Linear, GELU, LayerNorm, Linear, trained with Inductor on CPU."""

import torch
from torch import nn


def build_model() -> nn.Module:
    return nn.Sequential(  # SEQUENTIAL LINE
        nn.Linear(16, 32),  # FC1 LINE
        nn.GELU(),  # GELU LINE
        nn.LayerNorm(32),  # NORM LINE
        nn.Linear(32, 4),  # FC2 LINE
    )


def main() -> None:
    torch.manual_seed(0)
    model = build_model()  # MODEL LINE
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    step = torch.compile(model)
    x, y = torch.randn(8, 16), torch.randn(8, 4)
    for _ in range(10):
        loss = nn.functional.mse_loss(step(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad()


if __name__ == "__main__":
    main()
