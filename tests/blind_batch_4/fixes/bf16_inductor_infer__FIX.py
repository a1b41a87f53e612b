"""FIX: torch._inductor.config.emulate_precision_casts = True.
Fast CPU inference the way tutorials suggest: train a small transformer classifier in fp32, cast it to
bfloat16 for serving, and compile it with torch.compile (Inductor). The evaluation compares the served model
with the fp32 reference."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch._inductor.config.emulate_precision_casts = True  # round bf16 intermediates as eager does
VOCAB, SEQ, D, CLASSES = 64, 24, 64, 8


class TextClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, D)
        self.pos = nn.Parameter(torch.randn(1, SEQ, D) * 0.02)
        self.blocks = nn.Sequential(*[
            nn.Sequential(nn.LayerNorm(D), nn.Linear(D, 4 * D), nn.GELU(), nn.Linear(4 * D, D))
            for _ in range(3)
        ])
        self.norm = nn.LayerNorm(D)
        self.head = nn.Linear(D, CLASSES)

    def forward(self, tokens):
        x = self.embed(tokens) + self.pos
        for block in self.blocks:
            x = x + block(x)
        return self.head(self.norm(x).mean(1))


def make_batch(n):
    # label = (number of tokens below 16) mod CLASSES, a noisy-ish counting task
    tokens = torch.randint(0, VOCAB, (n, SEQ))
    labels = (tokens < 16).sum(1) % CLASSES
    return tokens, labels


model = TextClassifier()
opt = torch.optim.AdamW(model.parameters(), lr=2e-3)
for step in range(80):
    tokens, labels = make_batch(64)
    loss = F.cross_entropy(model(tokens), labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
print(f"fp32 training loss: {loss.item():.4f}")

model.eval()
tokens, labels = make_batch(2048)
with torch.no_grad():
    ref_logits = model(tokens)

serve = model.to(torch.bfloat16)
serve = torch.compile(serve)
with torch.no_grad():
    logits = serve(tokens).float()
probs = F.softmax(logits, dim=1)
print(f"bf16 accuracy: {(logits.argmax(1) == labels).float().mean().item():.4f}")
print(f"predictions equal to fp32: {(logits.argmax(1) == ref_logits.argmax(1)).sum().item()} / {len(labels)}")
print(f"max |logit - fp32 logit|: {(logits - ref_logits).abs().max().item():.6f}")
print(f"mean top probability: {probs.max(1).values.mean().item():.6f}")
