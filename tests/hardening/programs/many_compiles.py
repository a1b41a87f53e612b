"""Compiles many small frames (argv[1] of them), printing progress; enough events to fill a tiny disk.

argv[2], when given, is a file whose appearance the program waits for after the first compiles: a test removes the
record directory meanwhile."""

import os
import sys
import time

import torch

n = int(sys.argv[1])
gate = sys.argv[2] if len(sys.argv) > 2 else None
total = 0.0
for i in range(n):
    torch._dynamo.reset()  # a fresh compile (and its events) every iteration
    fn = torch.compile(lambda x, i=i: (x + i).relu() * 2, backend="eager")
    total += float(fn(torch.ones(4)).sum())
    if gate and i == 2:
        print("gate", flush=True)
        while not os.path.exists(gate):
            time.sleep(0.05)
print("total", total)
