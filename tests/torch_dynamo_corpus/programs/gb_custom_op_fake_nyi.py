# From pytorch/pytorch test/dynamo/test_error_messages.py :: ErrorMessagesTest.test_faketensor_nyi
# torch's test asserts (fullgraph=True): Unsupported "NotImplementedError/UnsupportedFakeTensorException when running
# FX node" (gb0087), hint: "If the op is a custom op, did you implement a fake tensor implementation?".
import torch


@torch.library.custom_op("corpuslib::my_sin", mutates_args=())
def my_sin(x: torch.Tensor) -> torch.Tensor:
    return x.sin()


@my_sin.register_fake
def _(x):
    raise NotImplementedError


@torch.compile(backend="eager")
def fn(x):
    return torch.ops.corpuslib.my_sin(x) + 1


x = torch.arange(3, dtype=torch.float32)
for _ in range(3):
    y = fn(x)
print("y:", [round(v, 4) for v in y.tolist()])
