# From pytorch/pytorch test/dynamo/test_recompile_ux.py :: RecompileUxTests.test_mismatched_tensor_type
# torch's test asserts "expected type of 'b' to be <class 'torch.nn.parameter.Parameter'>, but found <class 'torch.Tensor'>".
import torch


@torch.compile(backend="eager")
def func(a, b):
    return a + b


torch.manual_seed(0)
a = torch.rand(3, 4, 5)
b_parameter = torch.nn.Parameter(torch.rand(3, 4, 5))
b_tensor = torch.rand(3, 4, 5)
r1 = func(a, b_parameter)
r2 = func(a, b_tensor)
print("sums:", round(r1.sum().item(), 3), round(r2.sum().item(), 3))
