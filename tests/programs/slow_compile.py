"""Compiles a few frames, writing a marker between them, then sleeps: a target for kill tests."""

import sys
import time

import torch


@torch.compile(backend="eager")
def step(x, k):
    if x.sum() > 0:
        x = x + 1
    return x * k


for k in range(3):
    step(torch.ones(2), k)
print("compiled", flush=True)
sys.stdout.flush()
time.sleep(60)
