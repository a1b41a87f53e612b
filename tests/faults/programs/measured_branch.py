"""A training-like loop with a data-dependent branch (BRK001) and a batch size that changes once (RCP001), long
enough for the runtime window to measure its steps: the record the stage-fault tests break one stage at a time.

argparse first: run without ``--steps`` it dies on its own arguments before anything is compiled.
``--slow-backend`` compiles through a backend that announces itself and waits: a test interrupts the first compile.
"""
import argparse
import sys
import time

import torch

parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, required=True)
parser.add_argument("--slow-backend", action="store_true")
args = parser.parse_args()


def waiting_backend(gm, example_inputs):
    print("compiling", flush=True)  # the test sends SIGINT once it reads this line
    time.sleep(60)
    return gm.forward


def scale(x):
    y = torch.sin(x) * 2
    if y.sum() > 0:  # BRANCH
        return y * 2
    return y - 1


step = torch.compile(scale, backend=waiting_backend if args.slow_backend else "eager")
x = torch.randn(8, 4)
for i in range(args.steps):
    batch = 8 if i < args.steps // 2 else 16  # CALL
    x = step(torch.randn(batch, 4))
print("done", tuple(x.shape), file=sys.stdout)
