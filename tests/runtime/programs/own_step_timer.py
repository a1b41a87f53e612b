"""A compiled step that times itself: each step's start (time.perf_counter) goes to the file named by argv[1], so the
steps tdiag timed after its window can be checked against the program's own clock. argv[2]: steps (default 60);
argv[3]: the step at which the input changes shape (a recompile; default: never)."""

import sys
import time

import torch


@torch.compile(backend="eager", dynamic=False)
def step(x, w):
    for _ in range(8):
        x = torch.tanh(x @ w)
    return x


steps = int(sys.argv[2]) if len(sys.argv) > 2 else 60
reshape_at = int(sys.argv[3]) if len(sys.argv) > 3 else -1
w = torch.randn(64, 64) / 8
x = torch.randn(32, 64)
starts = []
for i in range(steps):
    if i == reshape_at:
        x = torch.randn(48, 64)
    starts.append(time.perf_counter())
    x = step(x, w).clamp(-1, 1)
with open(sys.argv[1], "w") as f:
    f.write("\n".join(repr(t) for t in starts))
print("done", tuple(x.shape))
