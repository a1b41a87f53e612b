"""An int argument used as a size: `x.repeat(n, 1)` cannot take a tensor. On torch 2.13 a plain run compiles tile
twice (n=2, then automatic dynamic makes n symbolic at its first change: 2 graphs, 1 recompile); compiled with
dynamic=True, once for every n (1 graph)."""

import torch


def tile_rows(x, n):
    return x.repeat(n, 1).sum(0)


tile = torch.compile(tile_rows, backend="eager")
for n in (2, 3, 4, 5):
    print(tile(torch.ones(3), n).tolist())
