"""A step of many pointwise ops over a large tensor: Inductor fuses them into one pass over memory, eager makes a
pass per op, so the compiled step is faster than eager."""

import torch


@torch.compile  # Inductor: the subject is how fast the compiled step runs, and fusion is what makes it fast
def step(x):
    for _ in range(16):
        x = x * 1.01 + 0.1
    return x


torch.manual_seed(0)
torch.set_num_threads(1)  # one thread: on a loaded machine work split over threads waits for the slowest
x = torch.rand(1 << 20)
for _ in range(32):
    y = step(x)
print("checksum", round(float(y[:8].sum()), 3))
