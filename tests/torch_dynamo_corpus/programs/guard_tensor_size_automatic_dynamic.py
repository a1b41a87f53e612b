# From pytorch/pytorch test/dynamo/test_recompiles.py :: RecompileTests.test_automatic_dynamic_reduce_recompiles
# torch's test asserts: with automatic dynamic shapes (default) 6 calls with sizes 2..6 compile 2 frames (one static,
# one dynamic after the first size change); with dynamic=False 5 frames.
import torch


@torch.compile(backend="eager")
def foo(x, y):
    return x * y


total = 0.0
for n in (2, 3, 4, 4, 5, 5, 6):
    x = torch.arange(n, dtype=torch.float32)
    total += foo(x, x).sum().item()
print("total:", total)
