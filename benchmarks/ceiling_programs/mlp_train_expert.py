"""The expert version: the hand-fixed program (mlp_train_fixed.py) plus what torch's documentation gives for a small
step on a GPU: the compiled callable under mode="reduce-overhead" (CUDA graphs; `_timing.cuda_graphs`: only with
Inductor on CUDA), torch.compiler.cudagraph_mark_step_begin() before each step (the training-loop marker of the CUDA
Graph Trees docs), and the optimizer step compiled by the "torch.compile the optimizer" recipe
(`@torch.compile(fullgraph=False) def opt_step(): opt.step()`). Shapes vary over a few sizes only (marked dynamic as
in the hand fix), so CUDA graphs record once per size and then replay.

Hand-fixed: mlp_train.py, hand-fixed: torch.where for the branch, the scale kept a tensor, the batch size marked
dynamic, and the model compiled whole (fullgraph=True)."""

import torch
from _timing import StepTimer, cuda_graphs, program_arguments
from torch import nn


class Block(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.up = nn.Linear(dim, 4 * dim)
        self.down = nn.Linear(4 * dim, dim)

    def forward(self, x):
        h = self.down(torch.nn.functional.gelu(self.up(self.norm(x))))
        h = torch.where(h.abs().mean() > 1.0, h * 0.5, h * 1.0)
        return x + h


class Model(nn.Module):
    def __init__(self, dim: int, depth: int):
        super().__init__()
        self.blocks = nn.Sequential(*[Block(dim) for _ in range(depth)])
        self.head = nn.Linear(dim, 1)

    def forward(self, x):
        h = self.blocks(x)
        scale = h.abs().amax()
        return self.head(h / (scale + 1.0)).squeeze(-1)


def main() -> None:
    args = program_arguments(steps=40, dim=64, depth=2)

    torch.manual_seed(0)
    model = Model(args.dim, args.depth).to(args.device)
    compiled = torch.compile(model, backend=args.backend, fullgraph=True, mode=cuda_graphs(args))
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    @torch.compile(backend=args.backend, fullgraph=False)  # torch's compiled-optimizer recipe
    def opt_step():
        opt.step()
    timer = StepTimer(warmup=10, device=args.device)
    sizes = (64, 64, 96, 64, 128)
    losses = []
    for step in range(args.steps):
        batch = sizes[step % len(sizes)]
        x = torch.randn(batch, args.dim, device=args.device)
        y = torch.randn(batch, device=args.device)
        torch._dynamo.mark_dynamic(x, 0)
        torch.compiler.cudagraph_mark_step_begin()
        timer.start()
        loss = nn.functional.mse_loss(compiled(x), y)
        loss.backward()
        opt_step()
        opt.zero_grad()
        timer.stop()
        losses.append(loss.detach())
    print(f"mean loss {torch.stack(losses).mean().item():.2f}")


if __name__ == "__main__":
    main()
