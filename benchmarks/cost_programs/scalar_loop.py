"""A loop passing a Python float that changes every step into a compiled function (RCP002 until Dynamo makes it
dynamic; tdiag's patch passes it as a tensor)."""
import torch

torch.manual_seed(0)


@torch.compile(backend="aot_eager")
def scaled(x, temperature):
    return torch.softmax(x / temperature, dim=-1).sum()


x = torch.randn(64, 64)
for step in range(40):
    scaled(x, 1.0 + step * 0.01)
print("done")
