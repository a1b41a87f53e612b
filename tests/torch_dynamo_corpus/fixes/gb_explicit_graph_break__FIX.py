# FIX (torch's hint: remove the torch._dynamo.graph_break() call)
# From pytorch/pytorch test/dynamo/test_error_messages.py :: ErrorMessagesTest.test_dynamo_graph_break_fn
# (and test_latest_bytecode_to_graph_break): torch's test asserts "Call to `torch._dynamo.graph_break()`" (gb0025),
# "User-inserted graph break", hint: remove the call.
import torch


@torch.compile(backend="eager")
def fn(x):
    y = x + 1
    z = x + y
    return z * 2


for _ in range(3):
    out = fn(torch.ones(3))
print("out:", out.tolist())
