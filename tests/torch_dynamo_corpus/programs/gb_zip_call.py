# From pytorch/pytorch test/dynamo/test_error_messages.py :: ErrorMessagesTest.test_super_call_function
# torch's test asserts (fullgraph=True): Unsupported "Unsupported function call" (gb0147),
# "Dynamo does not know how to trace the function `UserDefinedObjectVariable(zip)`".
# Here the user passes a zip object and (by mistake) calls it; eager raises TypeError too.
import torch


@torch.compile(backend="eager")
def add_one(pairs):
    return [a + b + 1 for a, b in pairs()]


try:
    add_one(zip(range(5), range(10)))
except TypeError as e:
    print("TypeError:", e)
print("done")
