"""A small residual MLP trained with torch.compile, with the three problems tdiag patches most often.

    python mlp_train.py --device cuda --backend inductor --steps 300

- a branch on a tensor value in the block (BRK001: two graphs per call and a host sync),
- `.item()` to normalise the output (BRK002: a graph break and a sync every step),
- batches of 3 sizes (RCP001: a recompile per new size, until Dynamo makes the size dynamic).
Prints the mean loss of each epoch (rounded, so the output is the same with and without the fixes).
"""

import argparse

import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.up = nn.Linear(dim, 4 * dim)
        self.down = nn.Linear(4 * dim, dim)

    def forward(self, x):
        h = self.down(torch.nn.functional.gelu(self.up(self.norm(x))))
        if h.abs().mean() > 1.0:  # data-dependent branch (BRK001)
            h = h * 0.5
        else:
            h = h * 1.0
        return x + h


class Model(nn.Module):
    def __init__(self, dim: int, depth: int):
        super().__init__()
        self.blocks = nn.Sequential(*[Block(dim) for _ in range(depth)])
        self.head = nn.Linear(dim, 1)

    def forward(self, x):
        h = self.blocks(x)
        scale = h.abs().amax().item()  # .item() (BRK002)
        return self.head(h / (scale + 1.0)).squeeze(-1)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--device", default="cuda")
    parser.add_argument("--backend", default="inductor")
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--dim", type=int, default=512)
    parser.add_argument("--depth", type=int, default=4)
    args = parser.parse_args()

    torch.manual_seed(0)
    model = Model(args.dim, args.depth).to(args.device)
    compiled = torch.compile(model, backend=args.backend)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    sizes = (64, 64, 96, 64, 128)  # batch sizes vary (RCP001)
    losses = []
    for step in range(args.steps):
        batch = sizes[step % len(sizes)]
        x = torch.randn(batch, args.dim, device=args.device)
        y = torch.randn(batch, device=args.device)
        loss = nn.functional.mse_loss(compiled(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad()
        losses.append(loss.detach())
    print(f"mean loss {torch.stack(losses).mean().item():.2f}")


if __name__ == "__main__":
    main()
