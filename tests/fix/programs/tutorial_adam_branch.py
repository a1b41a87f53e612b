"""tutorial_adam.py with a data-dependent branch in the model's forward (a graph break, torch.where's patch) beside its
optimizer-bound step (RUN001's patch): the break's patch changes what compiles, the optimizer's only the step time.

A training loop as PyTorch's CPU tutorials write it: a compiled model, torch.optim.Adam at its defaults.

On a CPU Adam's default implementation loops over the parameters in Python (foreach defaults to True only for CUDA
tensors); over 48 small tensors that loop costs more than the compiled forward and backward of the tiny model, so
the step is optimizer-bound (RUN001). `tdiag fix --verify` should keep an optimizer patch and the step get faster
with the same printed losses. The backend is the first argument (default aot_eager: Inductor is not the subject).
"""

import sys

import torch
from torch import nn

torch.manual_seed(0)
torch.set_num_threads(1)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.Sequential(*[nn.Sequential(nn.Linear(16, 16), nn.ReLU()) for _ in range(24)])

    def forward(self, x):
        h = self.layers(x)
        if h.mean() > 0:  # a data-dependent branch: a graph break
            h = h + 0.5
        else:
            h = h - 0.5
        return h


backend = sys.argv[1] if len(sys.argv) > 1 else "aot_eager"
steps = int(sys.argv[2]) if len(sys.argv) > 2 else 60
model = Net()
compiled = torch.compile(model, backend=backend)
optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
loss_fn = nn.MSELoss()
x, y = torch.randn(8, 16), torch.randn(8, 16)
for step in range(steps):
    optimizer.zero_grad()
    loss = loss_fn(compiled(x), y)
    loss.backward()
    optimizer.step()
    if step % 20 == 19:
        print(f"step {step + 1}: loss {loss.item():.4f}")
