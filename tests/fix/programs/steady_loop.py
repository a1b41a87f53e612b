"""A clean compiled step called 40 times: no finding, one graph, a measured window of steady steps."""

import torch


@torch.compile(backend="eager")
def step(x, w):
    return torch.tanh(x @ w).sum(dim=0)


if __name__ == "__main__":
    torch.manual_seed(0)
    w = torch.randn(16, 16)
    total = torch.zeros(16)
    for _ in range(40):
        total += step(torch.randn(8, 16), w)
    print([round(v, 3) for v in total.tolist()[:4]])
