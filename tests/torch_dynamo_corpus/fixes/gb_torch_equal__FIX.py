# FIX (tensor-valued comparison with torch.where instead of torch.equal + Python if)
# From pytorch/pytorch test/dynamo/test_error_messages.py :: ErrorMessagesTest.test_data_dependent_operator2
# torch's test asserts (capture_scalar_outputs=True, fullgraph=True): "Data dependent operator" (gb0033),
# "Operator `aten.equal.default` has a non-Tensor output whose value is dependent on the data of Tensor inputs".
# Here: the default config (capture_scalar_outputs=False), a user comparing two tensors with torch.equal.
import torch


@torch.compile(backend="eager")
def same_then_add(x, y):
    return torch.where((x == y).all(), x + 1, x - y)


a = torch.ones(3)
for _ in range(3):
    r1 = same_then_add(a, torch.ones(3))
    r2 = same_then_add(a, torch.zeros(3))
print("r1:", r1.tolist(), "r2:", r2.tolist())
