"""A tensor-valued `if` inside compiled code (eager backend): one graph break, and a torch.where patch that keeps
every printed value."""

import torch


@torch.compile(backend="eager")
def step(x):
    y = torch.relu(x) * 2
    if y.sum() > 9.5:  # line 10: the data-dependent branch
        y = y + 1
    else:
        y = y - 1
    return y * 3


if __name__ == "__main__":
    torch.manual_seed(0)
    for _ in range(4):
        out = step(torch.randn(4, 3))
        print([round(v, 4) for v in out.flatten().tolist()])
