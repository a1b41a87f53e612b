"""NOT_FIX: drawing the decisions outside and passing them as a list of bools removes the break, but Dynamo
guards on every bool: one graph per drop pattern (up to 2**LAYERS), recompile limit.
Transformer encoder classifier trained with LayerDrop (Fan et al. 2019), implemented as fairseq and many
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

    def forward(self, tokens, drop=None):
        x = self.embed(tokens) + self.pos
        for i, layer in enumerate(self.layers):
            if drop is not None and drop[i]:
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
    drop = [random.random() < model.layerdrop for _ in range(LAYERS)]
    loss = F.cross_entropy(compiled(tokens, drop), labels)
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
