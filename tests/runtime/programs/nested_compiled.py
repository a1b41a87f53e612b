"""Compiled callables called through other compiled callables (issue 20): tdiag's runtime window must not change
what Dynamo compiles. SHAPES (comma-separated) run in order:

- forward_in_call: a module's forward compiled, the module called through torch.compile(m.__call__), a Python float
  argument that alternates from the 9th call on (Dynamo recompiles forward for it: 2 frames in plain python; under
  `tdiag run` the runtime window is open by then, so the recompile happens with the profiler on);
- model_in_step: a compiled model inside a compiled training step that breaks (print) and so calls the model from
  the step's eager part;
- helpers: torch.compile of an already compiled function, a fullgraph=True function calling a compiled one
  (inlined), a torch.compiler.disable helper calling a compiled one.
"""

import sys

import torch
from torch import nn

SHAPES = sys.argv[1].split(",")
CALLS = int(sys.argv[2]) if len(sys.argv) > 2 else 30
torch.manual_seed(0)


class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(8, 8)

    def forward(self, x, scale=1.0):
        return self.lin(x) * scale


x = torch.randn(4, 8)
if "forward_in_call" in SHAPES:
    m = M()
    m.forward = torch.compile(m.forward, backend="eager")
    outer = torch.compile(m.__call__, backend="eager")
    for i in range(CALLS):
        outer(x, 0.5 if i % 2 and i > 8 else 1.5)
if "model_in_step" in SHAPES:
    model = M()
    compiled = torch.compile(model, backend="eager")
    opt = torch.optim.SGD(model.parameters(), lr=0.01)

    @torch.compile(backend="eager")
    def step(x):
        h = x * 2
        print("step", file=sys.stderr) if x.sum() > 1e9 else None  # never prints
        torch._dynamo.graph_break()
        loss = compiled(h).sum()
        loss.backward()
        return loss

    for i in range(CALLS):
        step(x)
        opt.step()
        opt.zero_grad()
if "helpers" in SHAPES:
    @torch.compile(backend="eager")
    def inner(x, scale):
        return torch.sin(x) * scale

    twice = torch.compile(inner, backend="eager")

    @torch.compile(backend="eager", fullgraph=True)
    def full(x):
        return inner(x, 2.0) + 1

    @torch.compiler.disable
    def helper(x):
        return inner(x, 3.0)

    @torch.compile(backend="eager")
    def outer(x):
        y = helper(x)
        return y.cos()

    for i in range(CALLS):
        twice(x, 0.5 if i % 2 else 1.5)
        full(x)
        outer(x)
print("done")
