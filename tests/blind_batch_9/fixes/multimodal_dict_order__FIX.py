"""FIX CHECK: collate builds the feature dict in one canonical modality order (DIMS order)."""
"""Multimodal late-fusion classifier fed a dict of per-modality features; the records list modalities in varying order."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
DIMS = {"audio": 20, "video": 24, "text": 16}


class LateFusion(nn.Module):
    def __init__(self, hidden=32, classes=4):
        super().__init__()
        self.encoders = nn.ModuleDict({m: nn.Sequential(nn.Linear(d, hidden), nn.GELU()) for m, d in DIMS.items()})
        self.classifier = nn.Linear(hidden, classes)

    def forward(self, feats):
        fused = 0
        for name, x in feats.items():
            fused = fused + self.encoders[name](x)
        return self.classifier(fused / len(feats))


def make_records(n):
    # metadata written by different ingestion jobs: same modalities, different key order
    orders = [("audio", "video", "text"), ("video", "audio", "text"), ("text", "audio", "video"),
              ("audio", "text", "video"), ("video", "text", "audio"), ("text", "video", "audio")]
    g = torch.Generator().manual_seed(1)
    recs = []
    for i in range(n):
        order = orders[int(torch.randint(0, 6, (1,), generator=g))]
        recs.append({m: torch.randn(DIMS[m], generator=g) for m in order})
    return recs, torch.arange(n) % 4


def collate(records):
    return {name: torch.stack([r[name] for r in records]) for name in DIMS if name in records[0]}


records, labels = make_records(512)
model = LateFusion()
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
cmodel = torch.compile(model, backend="eager")
for epoch in range(3):
    total = 0.0
    for i in range(0, 512, 8):
        logits = cmodel(collate(records[i:i + 8]))
        loss = F.cross_entropy(logits, labels[i:i + 8])
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
    print(f"epoch {epoch}: loss {total / 64:.4f}")
