"""A hand-written ViT trained with bf16 autocast on the GPU, the shape of issue 63: its printed epoch accuracy varies
run to run by itself (bf16 training on a GPU is not bit-reproducible), the accuracy count is read with `.item()`
inside the compiled step (a graph break), and the step is small enough to be launch-bound (CUDA graphs pay).

Prints one `epoch N acc X loss Y` line per epoch and `step ms Z` (its own timer, a timing: never compared)."""

import time

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
device = "cuda"
DIM, DEPTH, HEADS, PATCH, IMG, CLASSES = 256, 6, 8, 4, 32, 10


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.n1, self.n2 = nn.LayerNorm(DIM), nn.LayerNorm(DIM)
        self.qkv, self.proj = nn.Linear(DIM, 3 * DIM), nn.Linear(DIM, DIM)
        self.mlp = nn.Sequential(nn.Linear(DIM, 4 * DIM), nn.GELU(), nn.Linear(4 * DIM, DIM))

    def forward(self, x):
        b, t, _ = x.shape
        q, k, v = self.qkv(self.n1(x)).view(b, t, 3, HEADS, DIM // HEADS).permute(2, 0, 3, 1, 4)
        x = x + self.proj(F.scaled_dot_product_attention(q, k, v).transpose(1, 2).reshape(b, t, DIM))
        return x + self.mlp(self.n2(x))


class ViT(nn.Module):
    def __init__(self):
        super().__init__()
        self.patch = nn.Conv2d(3, DIM, PATCH, PATCH)
        self.pos = nn.Parameter(torch.randn(1, (IMG // PATCH) ** 2, DIM) * 0.02)
        self.blocks = nn.Sequential(*[Block() for _ in range(DEPTH)])
        self.head = nn.Linear(DIM, CLASSES)

    def forward(self, x):
        x = self.patch(x).flatten(2).transpose(1, 2) + self.pos
        return self.head(self.blocks(x).mean(1))


model = ViT().to(device)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
images = torch.randn(1024, 3, IMG, IMG, device=device)
labels = (images[:, 0, :8, :8].mean((1, 2)) * 40).long().clamp(0, CLASSES - 1)


@torch.compile
def train_step(x, y):
    with torch.autocast("cuda", dtype=torch.bfloat16):
        logits = model(x)
        loss = F.cross_entropy(logits.float(), y)
    loss.backward()
    correct = (logits.argmax(1) == y).sum().item()
    return loss.detach(), correct


times = []
for epoch in range(4):
    total, seen = 0, 0
    for i in range(0, 1024, 128):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        loss, correct = train_step(images[i:i + 128], labels[i:i + 128])
        opt.step()
        opt.zero_grad(set_to_none=True)
        torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
        total, seen = total + correct, seen + 128
    print(f"epoch {epoch} acc {total / seen:.3f} loss {loss.item():.4f}")
times = sorted(times[8:])
print(f"step ms {times[len(times) // 2] * 1e3:.3f}")
