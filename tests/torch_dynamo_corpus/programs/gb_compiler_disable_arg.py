# From pytorch/pytorch test/dynamo/test_error_messages.py :: ErrorMessagesTest.test_disable_message
# torch's test asserts (fullgraph=True): Unsupported "Skip calling `torch.compiler.disable()`d function" (gb0098),
# "since it was wrapped with `torch.compiler.disable` (reason: ...)", hint: remove the torch.compiler.disable call.
import torch


@torch.compile(backend="eager")
def outer(fn, x):
    y = x * 2
    return fn(y) + 1


@torch.compiler.disable(reason="uses a custom kernel")
def postprocess(x):
    return x + 1


for _ in range(3):
    out = outer(postprocess, torch.ones(3))
print("out:", out.tolist())
