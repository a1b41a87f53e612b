# From pytorch/pytorch test/dynamo/test_error_messages.py :: ErrorMessagesTest.test_unsupported_builtin
# torch's test asserts (fullgraph=True): Unsupported "Failed to trace builtin operator" (gb0059),
# "Dynamo does not know how to trace builtin operator `print` with argument types ['str']", hint:
# torch._dynamo.config.reorderable_logging_functions.
import torch


@torch.compile(backend="eager")
def step(x):
    y = x * 2
    print("step: doubled")
    return y + 1


x = torch.ones(3)
for _ in range(3):
    x = step(x)
print("result:", x.tolist())
