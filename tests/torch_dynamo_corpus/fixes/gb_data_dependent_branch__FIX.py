# FIX (branch-free torch.where (torch hints torch.cond; where is enough for two cheap branches))
# From pytorch/pytorch test/dynamo/test_error_messages.py :: ErrorMessagesTest.test_data_dependent_branching_gb
# torch's test asserts (graph_breaks log): "Data-dependent branching" (gb0170), "Detected data-dependent branching
# (e.g. `if my_tensor.sum() > 0:`)", hint: use torch.cond.
import torch


@torch.compile(backend="eager")
def fn(x):
    return torch.where(x.sum() > 0, x.sin(), x.cos())


torch.manual_seed(0)
xs = [torch.randn(3) for _ in range(4)]
outs = [fn(x) for x in xs]
print("outs:", [[round(v, 4) for v in o.tolist()] for o in outs])
