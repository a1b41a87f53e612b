# From pytorch/pytorch test/dynamo/test_error_messages.py :: ErrorMessagesTest.test_skip_frame_empty_function_message
# torch's test asserts (dynamo DEBUG log): "Received signal to skip frame (without graph break): No ops traced for the
# FX graph. `torch.compile` will skip the frame and fall back to eager."
import torch


@torch.compile(backend="eager")
def record(x, history):
    history.append(x.shape[0])


history = []
for n in (3, 3, 3):
    record(torch.randn(n), history)
print("history:", history)
