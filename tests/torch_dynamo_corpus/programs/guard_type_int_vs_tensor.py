# From pytorch/pytorch test/dynamo/test_recompile_ux.py :: RecompileUxTests.test_mismatched_type
# torch's test asserts the recompile reason "expected type of 'b' to be <class 'torch.Tensor'>, but found <class 'int'>".
import torch


@torch.compile(backend="eager")
def func(a, b):
    return a + b


torch.manual_seed(0)
a = torch.rand(3, 4, 5)
b = torch.rand(3, 4, 5)
r1 = func(a, b)
r2 = func(a, 1)
print("sums:", round(r1.sum().item(), 3), round(r2.sum().item(), 3))
