"""A short Dynamo-only program with three graph breaks: the shape where tdiag's fixed cost (start-up, and the
analysis behind the end-of-run summary) is the largest share of the process."""

import torch


def step(x: torch.Tensor) -> torch.Tensor:
    x = torch.sin(x) + 1
    print("logging from the step")  # break 1: print
    x = x * 2
    if x.sum().item() > 0:  # break 2: data-dependent branch on .item()
        x = x - 1
    torch._dynamo.graph_break()  # break 3: explicit
    return torch.cos(x)


compiled = torch.compile(step, backend="eager")
for _ in range(3):
    compiled(torch.randn(16))
