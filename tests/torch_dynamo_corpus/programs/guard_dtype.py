# From pytorch/pytorch test/dynamo/test_recompile_ux.py :: RecompileUxTests.test_verbose_tensor_check (dtype case)
# torch's test asserts the recompile reason "tensor 'a' dtype mismatch. expected Float, actual Half".
import torch


@torch.compile(backend="eager")
def func(a):
    return torch.add(a, 4)


torch.manual_seed(0)
a = torch.rand(3, 4, 5)
r1 = func(a)
r2 = func(a.to(torch.float16))
r3 = func(a)
print("dtypes:", r1.dtype, r2.dtype, r3.dtype, "sum:", round(r3.sum().item(), 3))
