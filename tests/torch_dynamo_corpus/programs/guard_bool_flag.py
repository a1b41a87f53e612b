# From pytorch/pytorch test/dynamo/test_recompiles.py :: RecompileTests.test_recompiles_true_false_flop
# torch's test asserts: a Python bool argument that flips True/False compiles one graph per value (guard on the
# bool's value, "L['flag'] == True"-style); with automatic dynamic shapes 3 frames for its 5 calls.
import torch


@torch.compile(backend="eager")
def foo(flag, y):
    if flag:
        return y * 2
    return y * y


out = []
for flag, n in ((True, 2), (False, 2), (True, 3), (True, 4), (True, 5)):
    out.append(foo(flag, torch.ones(n)).sum().item())
print("sums:", out)
