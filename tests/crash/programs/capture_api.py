import sys

import torch

import tdiag


def step(x):
    if x.sum() > 0:
        return x + 1
    return x - 1


compiled = torch.compile(step, backend="eager", fullgraph=True)
try:
    with tdiag.capture(sys.argv[1]) as rec:
        compiled(torch.ones(4))
except torch._dynamo.exc.Unsupported as exc:
    print("raised through the capture:", type(exc).__name__)
first = rec.analysis().findings[0]
print(first.code, first.path, first.line)
