"""Multi-head attention written with einops as its docs show (rearrange to split heads, einsum, rearrange back),
compiled, with a batch whose sequence length changes."""

import torch
from einops import rearrange

torch.manual_seed(0)


class Attention(torch.nn.Module):
    def __init__(self, dim=32, heads=4):
        super().__init__()
        self.heads = heads
        self.qkv = torch.nn.Linear(dim, 3 * dim)
        self.out = torch.nn.Linear(dim, dim)

    def forward(self, x):
        q, k, v = rearrange(self.qkv(x), "b n (three h d) -> three b h n d", three=3, h=self.heads)
        attn = torch.einsum("bhid,bhjd->bhij", q, k).mul(q.shape[-1] ** -0.5).softmax(dim=-1)
        return self.out(rearrange(attn @ v, "b h n d -> b n (h d)"))


model = torch.compile(Attention(), backend="aot_eager")
with torch.no_grad():
    for length in (8, 12, 16):
        out = model(torch.randn(2, length, 32))  # EXPECT: the sequence length changes
print(f"out {out.sum().item():.4f}")
