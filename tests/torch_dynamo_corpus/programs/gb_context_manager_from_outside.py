# From pytorch/pytorch test/dynamo/test_error_messages.py :: ErrorMessagesTest.test_unsupported_context
# torch's test asserts (fullgraph=True): Unsupported "Unsupported context manager" (gb0142),
# "Dynamo does not know how to enter a `int` context manager", hint: context managers created outside the
# compiled region are not supported. Here a user passes a threading.Lock in and enters it.
import threading

import torch


@torch.compile(backend="eager")
def guarded_update(buf, x, lock):
    with lock:
        buf = buf + x
    return buf * 2


lock = threading.Lock()
buf = torch.zeros(4)
for i in range(3):
    buf = guarded_update(buf, torch.full((4,), float(i)), lock)
print("buf:", buf.tolist())
