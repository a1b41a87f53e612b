# From pytorch/pytorch test/dynamo/test_error_messages.py :: ErrorMessagesTest.test_observed_exception
# torch's test asserts (fullgraph=True): Unsupported "Observed exception" (gb0088), "Dynamo found no exception
# handler at the top-level compiled function when encountering an exception".
# Here: an input check raises inside the compiled function; the caller catches it.
import torch


@torch.compile(backend="eager")
def checked_scale(x, s):
    if s <= 0:
        raise ValueError("scale must be positive")
    return x * s


x = torch.ones(3)
print("ok:", checked_scale(x, 2).tolist())
try:
    checked_scale(x, -1)
except ValueError as e:
    print("ValueError:", e)
