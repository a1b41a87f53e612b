"""Eager time the profiler cannot name: a function Dynamo skipped (a graph break inside a `with` block it cannot
resume from: BRK006) and one past the recompile limit (a Python int that changes every call: RCP005). Both do real
work eagerly every step (WORK small ops); `cheap` is compiled and fast. Expected: BRK006 and RCP005 carry measured
(sampled) eager time, far more than nothing.
"""

import sys

import torch

WORK = 150


@torch.compile(backend="eager")
def cheap(x):
    return torch.tanh(x) + 1


class Section:  # a context manager Dynamo cannot reconstruct after a break inside it
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


@torch.compile(backend="eager")
def skipped(x):
    with Section():
        torch._dynamo.graph_break()
        for _ in range(WORK):
            x = x * 0.999 + 0.001
    return x


@torch.compile(backend="eager")
def limited(x, tag):
    for _ in range(WORK):
        x = x * 0.999 + 0.001
    return x + len(tag)


steps = int(sys.argv[1]) if len(sys.argv) > 1 else 30
x = torch.randn(16)
for i in range(steps):
    x = cheap(x)
    x = skipped(x)
    x = limited(x, f"step{i}")  # a new string every call: a recompile each, until the limit
print("done", bool(torch.isfinite(x).all()))
