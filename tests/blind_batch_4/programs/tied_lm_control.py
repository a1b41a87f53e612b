"""Character-level GPT-style language model trained on a toy corpus, nanoGPT-like: tied input/output
embeddings, pre-norm blocks, an activation chosen with functools.partial, a shape assertion with a formatted
message, and a max-norm constraint on the embedding applied through .data after each optimiser step.
Fixed-length blocks of text, so every training step has the same shapes."""
import functools
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
TEXT = ("the quick brown fox jumps over the lazy dog. pack my box with five dozen liquor jugs. "
        "how vexingly quick daft zebras jump! sphinx of black quartz, judge my vow. ") * 20
CHARS = sorted(set(TEXT))
STOI = {c: i for i, c in enumerate(CHARS)}
DATA = torch.tensor([STOI[c] for c in TEXT])
BLOCK, D, HEADS, LAYERS = 32, 64, 4, 2


class Block(nn.Module):
    def __init__(self, activation):
        super().__init__()
        self.ln1 = nn.LayerNorm(D)
        self.attn = nn.MultiheadAttention(D, HEADS, batch_first=True)
        self.ln2 = nn.LayerNorm(D)
        self.fc1 = nn.Linear(D, 4 * D)
        self.fc2 = nn.Linear(4 * D, D)
        self.act = activation

    def forward(self, x, mask):
        h = self.ln1(x)
        x = x + self.attn(h, h, h, attn_mask=mask, need_weights=False)[0]
        return x + self.fc2(self.act(self.fc1(self.ln2(x))))


class TinyGPT(nn.Module):
    def __init__(self, vocab_size):
        super().__init__()
        act = functools.partial(F.gelu, approximate="tanh")
        self.tok = nn.Embedding(vocab_size, D)
        self.pos = nn.Embedding(BLOCK, D)
        self.blocks = nn.ModuleList([Block(act) for _ in range(LAYERS)])
        self.ln_f = nn.LayerNorm(D)
        self.head = nn.Linear(D, vocab_size, bias=False)
        self.head.weight = self.tok.weight  # weight tying
        nn.init.normal_(self.tok.weight, std=0.02)
        self.register_buffer("causal_mask", torch.triu(torch.full((BLOCK, BLOCK), float("-inf")), diagonal=1))

    def forward(self, idx, targets=None):
        b, t = idx.shape
        assert t <= BLOCK, f"Cannot forward sequence of shape {tuple(idx.shape)}, block size is {BLOCK}"
        x = self.tok(idx) + self.pos(torch.arange(t))
        mask = self.causal_mask[:t, :t]
        for block in self.blocks:
            x = block(x, mask)
        logits = self.head(self.ln_f(x))
        loss = None
        if targets is not None:
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1))
        return logits, loss


def get_batch(batch_size):
    ix = torch.randint(len(DATA) - BLOCK - 1, (batch_size,))
    x = torch.stack([DATA[i:i + BLOCK] for i in ix.tolist()])
    y = torch.stack([DATA[i + 1:i + 1 + BLOCK] for i in ix.tolist()])
    return x, y


model = TinyGPT(len(CHARS))
compiled = torch.compile(model, backend="aot_eager")
opt = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=0.0)
for step in range(80):
    x, y = get_batch(16)
    _, loss = compiled(x, y)
    opt.zero_grad(set_to_none=True)
    loss.backward()
    opt.step()
    with torch.no_grad():
        model.tok.weight.data = torch.renorm(model.tok.weight.data, p=2, dim=0, maxnorm=1.0)
    if step % 20 == 0:
        print(f"step {step:3d}  loss {loss.item():.4f}")
print(f"final train loss {loss.item():.4f}  perplexity {math.exp(loss.item()):.2f}")
print(f"tied weights share storage: {model.head.weight.data_ptr() == model.tok.weight.data_ptr()}")
