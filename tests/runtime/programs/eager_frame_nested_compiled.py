"""An eager frame with compiled code inside it (issue 32: a peft-wrapped GPT-2 compiled whole, whose skipped
forward held 85% of the window in compiled graphs): `Outer.forward` is skipped by Dynamo (a graph break inside a
`with` block it cannot resume from: BRK006), and each of its blocks, called from inside it, is compiled on its own
and does most of the step's work. Expected: BRK006 costs the outer frame's own eager time, not the blocks'
compiled time that runs inside it.
"""

import sys

import torch

WIDTH, BLOCKS = 384, 4


class Section:  # a context manager Dynamo cannot reconstruct after a break inside it
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.a = torch.nn.Linear(WIDTH, WIDTH)
        self.b = torch.nn.Linear(WIDTH, WIDTH)

    def forward(self, x):
        return x + self.b(torch.relu(self.a(x)))


class Outer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = torch.nn.ModuleList(Block() for _ in range(BLOCKS))

    def forward(self, x):
        with Section():
            torch._dynamo.graph_break()
            for block in self.blocks:
                x = block(x)
        return x


torch.manual_seed(0)
model = torch.compile(Outer(), backend="eager")
steps = int(sys.argv[1]) if len(sys.argv) > 1 else 30
x = y = torch.randn(256, WIDTH)
with torch.no_grad():
    for _ in range(steps):
        y = model(x)
print("done", bool(torch.isfinite(y).all()))
