"""An if/elif/else chain on tensor values: one graph break per condition; nested torch.where removes both."""

import torch


@torch.compile(backend="eager")
def clip(x):
    s = x.sum()
    if s > 2.0:  # large
        y = x * 0.5
    elif s < -2.0:
        y = x * 2.0
    else:
        y = x + 1
    return y * 3


if __name__ == "__main__":
    torch.manual_seed(0)
    for scale in (3.0, -3.0, 0.1, 3.0):
        out = clip(torch.ones(4) * scale)
        print([round(v, 4) for v in out.tolist()])
