# From pytorch/pytorch test/dynamo/test_recompiles.py :: RecompileTests.test_automatic_dynamic_on_closed_ints
# (default dynamic): torch's test asserts 2 frames for 10 calls whose int changes (one static compile on the first
# value, then one dynamic). Here the int is a plain argument.
import torch


@torch.compile(backend="eager")
def shift(x, n):
    return x + n


total = 0.0
for i in range(10):
    total += shift(torch.ones(5), i).sum().item()
print("total:", total)
