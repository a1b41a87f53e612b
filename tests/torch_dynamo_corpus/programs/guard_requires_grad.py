# From pytorch/pytorch test/dynamo/test_recompile_ux.py :: RecompileUxTests.test_verbose_tensor_check
# (requires_grad case): torch's test asserts "tensor 'a' requires_grad mismatch. expected requires_grad=0".
import torch


@torch.compile(backend="eager")
def func(a):
    return torch.add(a, 4)


torch.manual_seed(0)
a = torch.rand(3, 4, 5)
r1 = func(a)
a_grad = a.clone()
a_grad.requires_grad = True
r2 = func(a_grad)
print("requires_grad:", r1.requires_grad, r2.requires_grad, "sum:", round(r2.sum().item(), 3))
