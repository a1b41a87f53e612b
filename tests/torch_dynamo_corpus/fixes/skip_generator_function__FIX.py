# FIX (torch's hint: compile a non-generator function called from the generator)
# Source: graph-break registry entry GB0003 "Attempt to trace generator" (torch/_dynamo/graph_break_registry.json):
# "Generators cannot be compiled directly with `torch.compile`", hint: call the generator from inside a non-generator
# Python function and compile that. Exact torch test name not verified.
import torch


@torch.compile(backend="eager")
def double(row):
    return row * 2


def batches(x, n):
    for i in range(n):
        yield double(x[i])


x = torch.arange(6, dtype=torch.float32).reshape(3, 2)
out = [b.tolist() for b in batches(x, 3)]
print("batches:", out)
