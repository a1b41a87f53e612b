"""A debug print inside compiled code: the patch replays it after the graph, so the output stays the same."""

import torch


@torch.compile(backend="eager")
def scaled(x):
    y = x * 2
    print("debug: y computed")
    return y + 1


if __name__ == "__main__":
    torch.manual_seed(0)
    out = scaled(torch.randn(3))
    print([round(v, 4) for v in out.tolist()])
