"""A tiny training step under Inductor, for the compile-cache tests: one forward graph and one backward graph.

CACHE_STEP_CONFIG=1 sets an Inductor config key (part of the FX graph cache key, no effect on CPU code);
CACHE_STEP_BATCH=N changes the input's batch size (a shape in the key).
"""

import os

import torch
import torch._inductor.config

torch.manual_seed(0)
if os.environ.get("CACHE_STEP_CONFIG") == "1":
    torch._inductor.config.max_autotune_pointwise = True
batch = int(os.environ.get("CACHE_STEP_BATCH", "4"))
model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.ReLU(), torch.nn.Linear(8, 2))
step = torch.compile(model)
loss = step(torch.randn(batch, 8)).sum()
loss.backward()
print(f"loss {loss.item():.4f}")
