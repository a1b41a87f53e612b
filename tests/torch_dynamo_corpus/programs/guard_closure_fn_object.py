# From pytorch/pytorch test/dynamo/test_recompiles.py :: RecompileTests.test_automatic_dynamic_on_closed_ints
# torch's test asserts 2 frames for 10 calls that pass a fresh closure g (over a changing int) each time: one static
# compile, one recompile (the closed-over int becomes dynamic).
import torch


def make_adder(k):
    def g(y):
        return y + k

    return g


@torch.compile(backend="eager")
def h(x, g):
    return g(x)


total = 0.0
for i in range(10):
    total += h(torch.ones(5), make_adder(i)).sum().item()
print("total:", total)
