# From pytorch/pytorch test/dynamo/test_error_messages.py :: ErrorMessagesTest.test_load_build_class
# torch's test asserts (fullgraph=True): Unsupported "Attempted to call function marked as skipped" (gb0007),
# "Dynamo does not know how to trace the builtin `builtins.__build_class__.`".
import torch


@torch.compile(backend="eager")
def make_result(x):
    class Result:
        pass

    r = Result()
    r.value = x * 2
    return r


for _ in range(3):
    r = make_result(torch.ones(2))
print("value:", r.value.tolist())
