# From pytorch/pytorch test/dynamo/test_error_messages.py :: ErrorMessagesTest.test_reconstruction_failure
# torch's test asserts (fullgraph=True): Unsupported "Reconstruction failure" (gb0092), "Dynamo has no bytecode
# reconstruction implemented for sourceless variable UserMethodVariable(...)".
import torch


class Scaler:
    def __init__(self, k):
        self.k = k

    def apply(self, x):
        return x * self.k


@torch.compile(backend="eager")
def build(x):
    y = x + 1
    return y, Scaler(3).apply


for _ in range(3):
    y, f = build(torch.ones(2))
print("out:", f(y).tolist())
