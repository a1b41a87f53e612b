"""FIX: the three rearrange calls written as reshape/permute; no pattern parsing inside the compiled model.
A small Vision Transformer whose tensor reshapes go through a home-made einops-style rearrange(tensor, pattern,
**sizes), as repositories that avoid the einops dependency write it: the pattern string is parsed with re into
axis groups on every call, then reshape/permute/reshape. The model is compiled and trained on a toy
4-class image task."""
import math
import re

import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
_GROUP = re.compile(r"\(([^)]*)\)|(\w+)")


def _parse(side):
    return [m.group(1).split() if m.group(1) is not None else [m.group(2)] for m in _GROUP.finditer(side)]


def rearrange(x, pattern, **sizes):
    left, right = (s.strip() for s in pattern.split("->"))
    lhs, rhs = _parse(left), _parse(right)
    known = dict(sizes)
    for group, dim in zip(lhs, x.shape):
        unknown = [a for a in group if a not in known]
        prod = math.prod(known[a] for a in group if a in known)
        if unknown:
            known[unknown[0]] = dim // prod
    flat = [a for group in lhs for a in group]
    x = x.reshape([known[a] for a in flat])
    order = [flat.index(a) for group in rhs for a in group]
    x = x.permute(order)
    return x.reshape([math.prod(known[a] for a in group) for group in rhs])


class Attention(nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, dim * 3)
        self.proj = nn.Linear(dim, dim)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        b, n, _ = x.shape
        q, k, v = (t.reshape(b, n, self.heads, -1).permute(0, 2, 1, 3) for t in (q, k, v))
        out = F.scaled_dot_product_attention(q, k, v)
        return self.proj(out.permute(0, 2, 1, 3).reshape(b, n, -1))


class ViT(nn.Module):
    def __init__(self, image=16, patch=4, dim=48, depth=2, heads=4, classes=4):
        super().__init__()
        self.patch = patch
        self.embed = nn.Linear(patch * patch, dim)
        self.pos = nn.Parameter(torch.randn(1, (image // patch) ** 2, dim) * 0.02)
        self.blocks = nn.ModuleList(
            nn.ModuleList([nn.LayerNorm(dim), Attention(dim, heads), nn.LayerNorm(dim),
                           nn.Sequential(nn.Linear(dim, dim * 2), nn.GELU(), nn.Linear(dim * 2, dim))])
            for _ in range(depth))
        self.head = nn.Linear(dim, classes)

    def forward(self, img):
        b, c, H, W = img.shape
        p = self.patch
        x = img.reshape(b, c, H // p, p, W // p, p).permute(0, 2, 4, 3, 5, 1).reshape(b, (H // p) * (W // p), p * p * c)
        x = self.embed(x) + self.pos
        for norm1, attn, norm2, mlp in self.blocks:
            x = x + attn(norm1(x))
            x = x + mlp(norm2(x))
        return self.head(x.mean(1))


def make_batch(n, g):
    y = torch.randint(0, 4, (n,), generator=g)
    img = 0.5 * torch.randn(n, 1, 16, 16, generator=g)
    for c in range(4):  # class c has a bright bar in quadrant c
        r, col = divmod(c, 2)
        img[y == c, :, r * 8 + 3:r * 8 + 5, col * 8:col * 8 + 8] += 2.0
    return img, y


def main():
    g = torch.Generator().manual_seed(0)
    model = ViT()
    compiled = torch.compile(model, backend="aot_eager")
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    for step in range(60):
        img, y = make_batch(32, g)
        loss = F.cross_entropy(compiled(img), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 20 == 19:
            print(f"step {step + 1} loss {loss.item():.4f}")
    img, y = make_batch(256, g)
    acc = (compiled(img).argmax(1) == y).float().mean().item()
    print(f"accuracy {acc:.4f}")


if __name__ == "__main__":
    main()
