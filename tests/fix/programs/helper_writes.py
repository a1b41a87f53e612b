"""A compiled step calls a helper that only writes progress text: each sys.stdout.write is a call Dynamo cannot
trace. On torch 2.13 a plain run counts 3 graph breaks (the step split around the call, then the helper traced as
frames of its own breaking at each write) and 2 graphs; with the helper disabled, 1 break (at its call) and 2 graphs,
the same text."""

import sys

import torch


def log_progress(step, y):
    sys.stdout.write(f"step {step}\n")
    sys.stdout.write(f"rows {y.shape[0]}\n")
    sys.stdout.flush()


@torch.compile(backend="eager")
def train_step(x, i):
    y = x * 2
    log_progress(i, y)
    z = y + 1
    return z.sum()


for i in range(3):
    print(f"sum {train_step(torch.ones(8), 0).item():.1f}")
