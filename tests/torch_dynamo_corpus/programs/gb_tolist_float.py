# Source: graph-break registry entry GB0109 "Tensor.tolist() with non-integer tensor"
# (torch/_dynamo/graph_break_registry.json). Exact torch test name not verified.
import torch


@torch.compile(backend="eager")
def to_weights(x):
    vals = (x.softmax(0) * 100).tolist()
    return [round(v, 2) for v in vals]


x = torch.tensor([1.0, 2.0, 3.0])
for _ in range(3):
    w = to_weights(x)
print("weights:", w)
