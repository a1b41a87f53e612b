"""A GPT-2-like model (plain torch: 6 pre-norm blocks, causal SDPA, tied head) trained a few steps with
torch.compile (Inductor), for benchmarks/gpu_cache.py: cold vs warm vs changed compile caches.

CACHE_STEP_CONFIG=1 sets an Inductor config key (part of the FX graph cache key); CACHE_STEP_BATCH=N another batch
size; MEGA_SAVE=FILE writes torch.compiler.save_cache_artifacts() after the steps, MEGA_LOAD=FILE loads them first.
"""

import os

import torch
import torch._inductor.config
import torch.nn.functional as F
from torch import nn

if os.environ.get("MEGA_LOAD") and os.path.exists(os.environ["MEGA_LOAD"]):
    with open(os.environ["MEGA_LOAD"], "rb") as fh:
        torch.compiler.load_cache_artifacts(fh.read())
if os.environ.get("CACHE_STEP_CONFIG") == "1":
    torch._inductor.config.max_autotune_pointwise = True
device = "cuda" if torch.cuda.is_available() else "cpu"
torch.manual_seed(0)
VOCAB, DIM, HEADS, LAYERS, SEQ = 8192, 512, 8, 6, 256
batch = int(os.environ.get("CACHE_STEP_BATCH", "8"))


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(DIM), nn.LayerNorm(DIM)
        self.qkv, self.proj = nn.Linear(DIM, 3 * DIM), nn.Linear(DIM, DIM)
        self.fc, self.out = nn.Linear(DIM, 4 * DIM), nn.Linear(4 * DIM, DIM)

    def forward(self, x):
        b, t, _ = x.shape
        q, k, v = self.qkv(self.ln1(x)).view(b, t, 3, HEADS, DIM // HEADS).unbind(2)
        y = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), is_causal=True)
        x = x + self.proj(y.transpose(1, 2).reshape(b, t, DIM))
        return x + self.out(F.gelu(self.fc(self.ln2(x)), approximate="tanh"))


class GPT(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(VOCAB, DIM), nn.Embedding(SEQ, DIM)
        self.blocks = nn.ModuleList(Block() for _ in range(LAYERS))
        self.ln = nn.LayerNorm(DIM)

    def forward(self, ids):
        x = self.wte(ids) + self.wpe(torch.arange(ids.shape[1], device=ids.device))
        for block in self.blocks:
            x = block(x)
        return self.ln(x) @ self.wte.weight.t()


model = GPT().to(device)
opt = torch.optim.AdamW(model.parameters(), lr=3e-4)
compiled = torch.compile(model)
for _step in range(6):
    ids = torch.randint(0, VOCAB, (batch, SEQ), device=device)
    with torch.autocast(device, dtype=torch.bfloat16, enabled=device == "cuda"):
        loss = F.cross_entropy(compiled(ids[:, :-1]).flatten(0, 1).float(), ids[:, 1:].flatten())
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
if device == "cuda":
    torch.cuda.synchronize()
print(f"final loss {loss.item():.3f}")
if os.environ.get("MEGA_SAVE"):
    artifacts = torch.compiler.save_cache_artifacts()
    if artifacts is not None:
        with open(os.environ["MEGA_SAVE"], "wb") as fh:
            fh.write(artifacts[0])
