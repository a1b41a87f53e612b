# From pytorch/pytorch test/dynamo/test_recompile_ux.py :: RecompileUxTests.test_nvfuser_guards (and the stride case
# of test_verbose_tensor_check): torch's test asserts that a view keeps the cache entry but a permuted input
# (different strides) recompiles ("tensor 'b' stride mismatch at index ...").
import torch


@torch.compile(backend="eager")
def func(a, b, c):
    return a + b * c


torch.manual_seed(0)
a = torch.rand(3, 4, 5)
b = torch.rand(3, 4, 5)
b_v = torch.rand(3, 5, 4).view(3, 4, 5)
b_p = torch.rand(3, 5, 4).permute(0, 2, 1)
c = torch.rand(3, 4, 5)
s = [func(a, b, c).sum().item(), func(a, b, c).sum().item(), func(a, b_v, c).sum().item(), func(a, b_p, c).sum().item()]
print("sums:", [round(v, 3) for v in s])
