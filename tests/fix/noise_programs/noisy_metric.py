"""A training loop whose printed accuracy varies run to run by itself, as bf16 training on a GPU does (three unchanged
runs printed 0.108, 0.108, 0.107 there). Here the variation is deterministic so that a test can rely on it: the program
appends a line to its own log (runs.log) on every run, and the evaluation batch is jittered by a generator seeded by
that count. The log is in the folder NOISE_RUNS_DIR names, else beside the program: `fix --verify` runs each side in a
fresh copy of the project, and a GPU's noise shows in every run, whichever copy it runs in. A debug print is left in the compiled step: a graph break whose patch (Dynamo replays the print
after the graph) changes no result."""

import os
from pathlib import Path

import torch

log = Path(os.environ.get("NOISE_RUNS_DIR") or Path(__file__).parent) / "runs.log"
with log.open("a") as f:
    f.write("run\n")
runs = len(log.read_text().splitlines())

torch.manual_seed(0)
model = torch.nn.Sequential(torch.nn.Linear(16, 32), torch.nn.ReLU(), torch.nn.Linear(32, 4))
opt = torch.optim.SGD(model.parameters(), lr=0.05)
x = torch.randn(512, 16)
y = x[:, :4].argmax(1)


@torch.compile(backend="eager")
def train_step(xb, yb):
    loss = torch.nn.functional.cross_entropy(model(xb), yb)
    print("step")  # a debug print left in the compiled step: a graph break
    loss.backward()
    return loss


for epoch in range(2):
    for i in range(0, 512, 64):
        train_step(x[i:i + 64], y[i:i + 64])
        opt.step()
        opt.zero_grad()
    jitter = torch.Generator().manual_seed(runs)
    x_eval = x + 0.05 * torch.randn(x.shape, generator=jitter)
    with torch.no_grad():
        acc = (model(x_eval).argmax(1) == y).float().mean().item()
    print(f"epoch {epoch} acc {acc:.4f}")
