"""The expert version: the hand-fixed program (train_example_fixed.py) plus what torch's documentation gives for a
small step on a GPU: the compiled callable under mode="reduce-overhead" (CUDA graphs; `_timing.cuda_graphs`: only
with Inductor on CUDA), torch.compiler.cudagraph_mark_step_begin() before each step (the training-loop marker of the
CUDA Graph Trees docs), and the optimizer step compiled by the "torch.compile the optimizer" recipe
(`@torch.compile(fullgraph=False) def opt_step(): opt.step()`). Shapes vary over a few sizes only (marked dynamic as
in the hand fix), so CUDA graphs record once per size and then replay.

Hand-fixed: train_example.py, hand-fixed: torch.where for the branch, the scale kept a tensor, the batch size marked
dynamic, the model compiled whole (fullgraph=True)."""

import argparse

import torch
from _timing import StepTimer, cuda_graphs
from torch import nn


class Gate(nn.Module):
    def __init__(self, dim: int):
        super().__init__()
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        h = torch.relu(self.proj(x))
        return torch.where(h.mean() > 0.5, h * 0.5, h + 0.1)


class Model(nn.Module):
    def __init__(self, dim: int = 32):
        super().__init__()
        self.gate = Gate(dim)
        self.head = nn.Linear(dim, 1)

    def forward(self, x):
        h = self.gate(x)
        scale = h.abs().max()
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
    compiled = torch.compile(model, backend=args.backend, fullgraph=True, mode=cuda_graphs(args))
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    @torch.compile(backend=args.backend, fullgraph=False)  # torch's compiled-optimizer recipe
    def opt_step():
        opt.step()
    for epoch in range(args.epochs):
        for batch in (16, 16, 24):  # the last batch is smaller/larger: a recompile (RCP001)
            x = torch.randn(batch, 32, device=args.device)
            y = torch.randn(batch, device=args.device)
            torch._dynamo.mark_dynamic(x, 0)
            torch.compiler.cudagraph_mark_step_begin()
            timer.start()
            loss = nn.functional.mse_loss(compiled(x), y)
            loss.backward()
            opt_step()
            opt.zero_grad()
            timer.stop()
        print(f"epoch {epoch}: loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
