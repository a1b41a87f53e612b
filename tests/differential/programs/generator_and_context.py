"""A context manager and a generator used inside a compiled function, a closure over a changing global, and a
dataclass output."""

# differential: kind=script
import contextlib
from dataclasses import dataclass

import torch

SCALE = 1.0


@dataclass
class Out:
    value: torch.Tensor
    steps: int


@contextlib.contextmanager
def scaled():
    yield SCALE


def chunks(x):
    for part in x.chunk(2):
        yield part.sum()


@torch.compile(backend="eager")
def f(x):
    with scaled() as s:
        total = sum(chunks(x)) * s
    return Out(total, 2)


for i in range(4):
    SCALE = float(i % 2 + 1)
    out = f(torch.arange(6.0))
    print(i, out.value.item(), out.steps)
