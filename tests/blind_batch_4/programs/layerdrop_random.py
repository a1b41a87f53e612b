"""Transformer encoder classifier trained with LayerDrop (Fan et al. 2019), implemented as fairseq and many
repositories do: during training each layer is skipped with probability p, decided by random.random()."""
import random

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
random.seed(0)
VOCAB, SEQ, D, LAYERS, CLASSES = 20, 12, 32, 4, 2


class LayerDropEncoder(nn.Module):
    def __init__(self, layerdrop=0.2):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, D)
        self.pos = nn.Parameter(torch.randn(1, SEQ, D) * 0.02)
        self.layers = nn.ModuleList(
            nn.TransformerEncoderLayer(D, nhead=2, dim_feedforward=64, dropout=0.0, batch_first=True)
            for _ in range(LAYERS)
        )
        self.layerdrop = layerdrop
        self.head = nn.Linear(D, CLASSES)

    def forward(self, tokens):
        x = self.embed(tokens) + self.pos
        for layer in self.layers:
            if self.training and random.random() < self.layerdrop:
                continue
            x = layer(x)
        return self.head(x.mean(dim=1))


def make_batch(n):
    # label: whether token 7 appears more often than token 3
    tokens = torch.randint(0, VOCAB, (n, SEQ))
    tokens[torch.rand(n, SEQ) < 0.15] = 7
    tokens[torch.rand(n, SEQ) < 0.15] = 3
    labels = ((tokens == 7).sum(1) > (tokens == 3).sum(1)).long()
    return tokens, labels


model = LayerDropEncoder()
compiled = torch.compile(model, backend="aot_eager")
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
for step in range(60):
    tokens, labels = make_batch(16)
    loss = F.cross_entropy(compiled(tokens), labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 20 == 0:
        print(f"step {step:3d}  loss {loss.item():.4f}")

model.eval()
tokens, labels = make_batch(256)
with torch.no_grad():
    acc = (compiled(tokens).argmax(1) == labels).float().mean().item()
print(f"eval accuracy (all layers): {acc:.4f}")
