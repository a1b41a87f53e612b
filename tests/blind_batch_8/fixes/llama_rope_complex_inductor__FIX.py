"""FIX: the rotary embedding in real arithmetic (cos/sin tables, rotate interleaved pairs), no complex tensors.
A tiny LLaMA-style language model trained on a synthetic token stream, with rotary position embeddings
written as in Meta's reference llama code: precompute_freqs_cis builds complex rotations with torch.polar
and apply_rotary_emb multiplies view_as_complex(q/k) by them. Compiled with the default backend (Inductor)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB, DIM, HEADS, LAYERS, SEQ = 96, 64, 4, 2, 32
HEAD_DIM = DIM // HEADS


def precompute_freqs_cis(dim, end, theta=10000.0):
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2)[: (dim // 2)].float() / dim))
    t = torch.arange(end, device=freqs.device)
    freqs = torch.outer(t, freqs).float()
    return torch.stack([torch.cos(freqs), torch.sin(freqs)], -1)


def apply_rotary_emb(xq, xk, freqs_cis):
    cos = freqs_cis[..., 0].view(1, xq.shape[1], 1, -1)
    sin = freqs_cis[..., 1].view(1, xq.shape[1], 1, -1)

    def rotate(x):
        x0, x1 = x.float().reshape(*x.shape[:-1], -1, 2).unbind(-1)
        return torch.stack([x0 * cos - x1 * sin, x0 * sin + x1 * cos], -1).flatten(3).type_as(x)

    return rotate(xq), rotate(xk)


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm1, self.norm2 = nn.RMSNorm(DIM), nn.RMSNorm(DIM)
        self.wqkv = nn.Linear(DIM, 3 * DIM, bias=False)
        self.wo = nn.Linear(DIM, DIM, bias=False)
        self.w1, self.w3 = nn.Linear(DIM, 4 * DIM, bias=False), nn.Linear(DIM, 4 * DIM, bias=False)
        self.w2 = nn.Linear(4 * DIM, DIM, bias=False)

    def forward(self, x, freqs_cis):
        B, T, _ = x.shape
        q, k, v = self.wqkv(self.norm1(x)).view(B, T, 3, HEADS, HEAD_DIM).unbind(2)
        q, k = apply_rotary_emb(q, k, freqs_cis)
        att = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), is_causal=True)
        x = x + self.wo(att.transpose(1, 2).reshape(B, T, DIM))
        h = self.norm2(x)
        return x + self.w2(F.silu(self.w1(h)) * self.w3(h))


class TinyLlama(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, DIM)
        self.layers = nn.ModuleList(Block() for _ in range(LAYERS))
        self.norm = nn.RMSNorm(DIM)
        self.out = nn.Linear(DIM, VOCAB, bias=False)
        self.register_buffer("freqs_cis", precompute_freqs_cis(HEAD_DIM, SEQ), persistent=False)

    def forward(self, tokens):
        h = self.tok(tokens)
        for layer in self.layers:
            h = layer(h, self.freqs_cis[: tokens.shape[1]])
        return self.out(self.norm(h))


def main():
    stream = (torch.arange(20000) * 7 + torch.randint(0, 3, (20000,))) % VOCAB
    model = TinyLlama()
    compiled = torch.compile(model)
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    for step in range(60):
        starts = torch.randint(0, len(stream) - SEQ - 1, (16,))
        batch = torch.stack([stream[s:s + SEQ + 1] for s in starts.tolist()])
        logits = compiled(batch[:, :-1])
        loss = F.cross_entropy(logits.reshape(-1, VOCAB), batch[:, 1:].reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 20 == 0 or step == 59:
            print(f"step {step}: loss {loss.item():.3f}")


if __name__ == "__main__":
    main()
