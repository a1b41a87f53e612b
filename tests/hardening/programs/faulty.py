"""Ends abnormally at a chosen point. argv: POINT (before|during|after) ACTION (raise|exit|os_exit|wait).

"during" acts from inside a compile (a custom backend); "wait" prints READY and sleeps there, so a test can
send a signal while a compile is in progress.
"""

import os
import sys
import time

import torch

point, action = sys.argv[1], sys.argv[2]


def act():
    print("acting", point, action, flush=True)
    if action == "raise":
        raise RuntimeError(f"failure {point}")
    if action == "exit":
        sys.exit(5)
    if action == "os_exit":
        os._exit(6)
    print("READY", flush=True)
    time.sleep(60)


compiles = []


def backend(gm, example_inputs):
    compiles.append(len(gm.graph.nodes))
    if point == "during" and len(compiles) == 3:
        act()
    return gm.forward


@torch.compile(backend=backend)
def step(x, k):
    if x.sum() > 0:
        x = x + 1
    return x * k


if point == "before":
    act()
step(torch.ones(2), 1)
step(torch.ones(2), 2)  # a recompile: the third compile is the resume function of the second call, or a new one
step(torch.ones(3), 3)
if point == "after":
    act()
print("finished", compiles)
