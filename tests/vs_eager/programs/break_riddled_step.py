"""A tiny step broken into 21 pieces: every call re-enters Dynamo 20 times (cache lookup, guards, a resume function)
for two additions of four numbers, which eager runs in a few microseconds. Compiled is many times slower than eager.

Prints to stdout and stderr and exits with the status given as its first argument, so a test can check that
`tdiag run --vs-eager` keeps the program's own output and exit code. Its own per-step median goes to stderr: the
oracle a test compares tdiag's verdict with (plain python, compiled and with TORCH_COMPILE_DISABLE=1).
"""

import sys
import time

import torch


@torch.compile(backend="eager")
def step(x):
    x = x + 1
    torch._dynamo.graph_break()
    torch._dynamo.graph_break()
    torch._dynamo.graph_break()
    torch._dynamo.graph_break()
    torch._dynamo.graph_break()
    torch._dynamo.graph_break()
    torch._dynamo.graph_break()
    torch._dynamo.graph_break()
    torch._dynamo.graph_break()
    torch._dynamo.graph_break()
    torch._dynamo.graph_break()
    torch._dynamo.graph_break()
    torch._dynamo.graph_break()
    torch._dynamo.graph_break()
    torch._dynamo.graph_break()
    torch._dynamo.graph_break()
    torch._dynamo.graph_break()
    torch._dynamo.graph_break()
    torch._dynamo.graph_break()
    torch._dynamo.graph_break()
    return x * 0.5


x = torch.zeros(4)
times = []
for i in range(60):
    start = time.perf_counter()
    x = step(x)
    times.append(time.perf_counter() - start)
    if i % 20 == 0:
        print(f"step {i}: {x.tolist()}")
print("to stderr", file=sys.stderr)
steady = sorted(times[10:])
print(f"median step us: {steady[len(steady) // 2] * 1e6:.1f}", file=sys.stderr)
sys.exit(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
