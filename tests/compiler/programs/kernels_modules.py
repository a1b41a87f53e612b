"""An nn.Sequential of torch.nn layers (Linear/GELU/LayerNorm) around an encoder of residual MLP blocks, compiled
with Inductor for inference: the kernel attribution fixture (module path, innermost frame, user line)."""

from collections import OrderedDict

import torch
from torch import nn


class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.norm = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        return x + self.mlp(self.norm(x))  # BLOCK LINE


class Encoder(nn.Module):
    def __init__(self, d, n):
        super().__init__()
        self.layers = nn.ModuleList(Block(d) for _ in range(n))

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


torch.manual_seed(0)
model = nn.Sequential(OrderedDict(embed=nn.Linear(16, 32), act=nn.GELU(), norm=nn.LayerNorm(32), encoder=Encoder(32, 2)))
compiled = torch.compile(model)
with torch.no_grad():
    print(tuple(compiled(torch.randn(8, 16)).shape))
