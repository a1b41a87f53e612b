# From pytorch/pytorch test/dynamo/test_recompiles.py :: RecompileTests.test_aliasing_guard_failures
# torch's test asserts: passing the same tensor as two arguments (a and c) after compiling with distinct tensors
# recompiles once ("Recompile, alias changed"); swapping distinct tensors does not.
import torch


@torch.compile(backend="eager")
def foo(a, b, c):
    a.add_(b)
    return c + 1


torch.manual_seed(0)
x, y, z = torch.randn(3), torch.randn(3), torch.randn(3)
r1 = foo(x.clone(), y.clone(), z.clone())
r2 = foo(z.clone(), y.clone(), x.clone())
xc = x.clone()
r3 = foo(xc, y.clone(), xc)
print("sums:", [round(r.sum().item(), 4) for r in (r1, r2, r3)])
