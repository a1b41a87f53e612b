"""A timm-style ViT block (pre-norm attention and MLP, LayerScale, DropPath stochastic depth) trained compiled.
timm itself needs torchvision, which has no CPU build for this torch on PyPI, so the block is written as timm's
vision_transformer.Block and layers/drop.py write it, with what torch ships."""

import torch
from torch import nn

torch.manual_seed(0)


def drop_path(x, drop_prob: float, training: bool):
    if drop_prob == 0.0 or not training:
        return x
    keep_prob = 1 - drop_prob
    shape = (x.shape[0],) + (1,) * (x.ndim - 1)
    random_tensor = x.new_empty(shape).bernoulli_(keep_prob)
    return x * random_tensor.div_(keep_prob)


class Block(nn.Module):
    def __init__(self, dim=32, heads=4, drop_path_rate=0.1):
        super().__init__()
        self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.mlp = nn.Sequential(nn.Linear(dim, 4 * dim), nn.GELU(), nn.Linear(4 * dim, dim))
        self.gamma1 = nn.Parameter(1e-5 * torch.ones(dim))
        self.gamma2 = nn.Parameter(1e-5 * torch.ones(dim))
        self.drop_path_rate = drop_path_rate

    def forward(self, x):
        h = self.norm1(x)
        x = x + drop_path(self.gamma1 * self.attn(h, h, h, need_weights=False)[0], self.drop_path_rate, self.training)
        return x + drop_path(self.gamma2 * self.mlp(self.norm2(x)), self.drop_path_rate, self.training)


model = nn.Sequential(Block(), Block())
compiled = torch.compile(model, backend="aot_eager")
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
tokens = torch.randn(4, 10, 32)
for _ in range(3):
    opt.zero_grad()
    loss = compiled(tokens).pow(2).mean()
    loss.backward()
    opt.step()
print(f"loss {loss.item():.6f}")
