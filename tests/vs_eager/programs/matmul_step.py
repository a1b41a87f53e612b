"""A step dominated by matrix products: Dynamo's per-call overhead (tens of microseconds) is lost in milliseconds
of the same aten work compiled or not, so the compiled step is not slower than eager."""

import torch


@torch.compile(backend="eager")
def step(x, w):
    for _ in range(4):
        x = torch.tanh(x @ w)
    return x


torch.manual_seed(0)
torch.set_num_threads(1)  # one thread: on a loaded machine a product split over threads waits for the slowest
x, w = torch.rand(256, 256), torch.rand(256, 256) / 256
for _ in range(40):
    y = step(x, w)
print("checksum", round(float(y.sum()), 2))
