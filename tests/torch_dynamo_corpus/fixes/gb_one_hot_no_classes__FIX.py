# FIX (torch's hint: pass num_classes to one_hot)
# Source: graph-break registry entry GB0246 "Attempted to use `torch.nn.functional.one_hot` with data-dependent
# output shape" (torch/_dynamo/graph_break_registry.json), hint: pass num_classes. Exact torch test name not verified.
import torch
import torch.nn.functional as F


@torch.compile(backend="eager")
def encode(labels):
    return F.one_hot(labels, num_classes=4).float().sum(0)


labels = torch.tensor([0, 2, 1, 2, 3])
for _ in range(3):
    counts = encode(labels)
print("counts:", counts.tolist())
