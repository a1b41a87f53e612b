# FIX (drop dynamic=False: automatic dynamic shapes make the length symbolic after one recompile)
# From pytorch/pytorch test/dynamo/test_recompile_ux.py :: RecompileUxTests.test_multiple_guard_fails
# torch's test asserts guard failures "tensor 'x' size mismatch at index 0. expected 8, actual 12" (one per earlier
# size) with dynamic=False. Here the user also passed dynamic=False and feeds 10 lengths: the recompile limit (8)
# is hit and the rest run eagerly.
import torch


@torch.compile(backend="eager")
def f(x):
    return torch.relu(x).sum()


total = 0.0
for i in range(10):
    total += f(torch.arange(8 + i, dtype=torch.float32) - 4).item()
print("total:", total)
