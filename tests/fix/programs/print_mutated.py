"""A print of a tensor the function changes in place afterwards: torch would replay the print after the graph with
the changed value (checked on torch 2.13), so no print patch may be offered."""

import torch


@torch.compile(backend="eager")
def step(x):
    y = x * 2
    print("y", y)
    y.add_(1)
    return y


if __name__ == "__main__":
    torch.manual_seed(0)
    out = step(torch.randn(3))
    print([round(v, 4) for v in out.tolist()])
