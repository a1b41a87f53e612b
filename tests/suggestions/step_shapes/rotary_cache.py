"""Rotary embeddings with a growing cos/sin cache, as LLaMA-style code writes it."""
import torch
import torch.nn as nn


class RotaryEmbedding(nn.Module):
    def __init__(self, dim, max_position=16):
        super().__init__()
        inv_freq = 1.0 / (10000 ** (torch.arange(0, dim, 2).float() / dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)
        self._set_cache(max_position)

    def _set_cache(self, seq_len):
        self.max_seq_len_cached = seq_len
        t = torch.arange(seq_len, dtype=self.inv_freq.dtype)
        freqs = torch.outer(t, self.inv_freq)
        emb = torch.cat((freqs, freqs), dim=-1)
        self.register_buffer("cos_cached", emb.cos(), persistent=False)
        self.register_buffer("sin_cached", emb.sin(), persistent=False)

    def forward(self, x, seq_len):
        if seq_len > self.max_seq_len_cached:
            self._set_cache(seq_len)
        return self.cos_cached[:seq_len], self.sin_cached[:seq_len]


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


class Attn(nn.Module):
    def __init__(self, dim=32):
        super().__init__()
        self.qkv = nn.Linear(dim, 3 * dim)
        self.rope = RotaryEmbedding(dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, x):
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        cos, sin = self.rope(x, x.shape[1])
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        att = torch.softmax(q @ k.transpose(-1, -2) / 32 ** 0.5, dim=-1)
        return self.out(att @ v)


torch.manual_seed(0)
model = Attn()
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
step = torch.compile(model, backend="aot_eager")
for seq in [8, 12, 16, 20, 24, 28, 32, 36]:
    x = torch.randn(2, seq, 32)
    loss = step(x).pow(2).mean()
    loss.backward()
    opt.step()
    opt.zero_grad()
    print(f"seq {seq} loss {loss.item():.4f}")
