"""A tensor-valued `if` (a patch to verify), and a pause before any work when SLOW_SECONDS is set.

`tdiag fix --verify --env SLOW_SECONDS=60` keeps every re-run inside the pause, so a test can press Ctrl-C while
the verification runs without waiting for torch.compile; the recording itself (no variable) runs straight through.
"""

import os
import time

import torch


@torch.compile(backend="eager")
def step(x):
    y = torch.relu(x) * 2
    if y.sum() > 9.5:  # data-dependent branch
        y = y + 1
    else:
        y = y - 1
    return y * 3


if __name__ == "__main__":
    print("started", flush=True)
    time.sleep(float(os.environ.get("SLOW_SECONDS", "0")))
    torch.manual_seed(0)
    for _ in range(4):
        out = step(torch.randn(4, 3))
        print([round(v, 4) for v in out.flatten().tolist()])
