# From pytorch/pytorch test/dynamo/test_error_messages.py :: ErrorMessagesTest.test_fx_node_error_bad_user_code
# torch's test asserts (fullgraph=True): TorchRuntimeError "RuntimeError when making fake tensor call" (gb4315),
# "Attempting to broadcast a dimension of length 4", hint: the code may error in eager too.
# A real bug in user code: the program fails in eager as well (exit 1 both ways).
import torch


@torch.compile(backend="eager")
def add(x, y):
    return x + y


torch.manual_seed(0)
print("start")
out = add(torch.randn(3), torch.randn(4))
print("out:", out)
