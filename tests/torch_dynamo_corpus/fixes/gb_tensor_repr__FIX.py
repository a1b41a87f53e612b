# FIX (format the tensor outside the compiled function)
# Source: graph-break registry entry GB0569 "repr() on tensor" (torch/_dynamo/graph_break_registry.json).
# Exact torch test name not verified. A user formats a tensor into a string inside the compiled function.
import torch


@torch.compile(backend="eager")
def describe(x):
    y = x * 2
    return y + 1, y


for _ in range(3):
    out, y = describe(torch.ones(2))
    label = repr(y)
print("out:", out.tolist(), "label:", label)
