"""A program that checks that torch.compile compiled its step and exits 3 when it did not: with torch.compile
disabled it runs differently, so its eager steps are not the same program's and no comparison is made."""

import sys

import torch


@torch.compile(backend="eager")
def step(x):
    return torch.sin(x) + 1


x = torch.zeros(8)
for _ in range(30):
    x = step(x)
print("checksum", round(float(x.sum()), 3))
compiled = torch._dynamo.utils.counters["stats"]["unique_graphs"]
sys.exit(0 if compiled else 3)
