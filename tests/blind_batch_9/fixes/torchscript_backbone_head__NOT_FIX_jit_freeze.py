"""FIX CHECK: torch.jit.freeze on the loaded backbone."""
"""Linear probe: a frozen TorchScript feature extractor (as loaded from a .pt file) plus a trainable head, compiled."""
import io

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


def exported_backbone():
    # what another team shipped: torch.jit.trace(...) + torch.jit.save(...) to backbone.pt
    net = nn.Sequential(
        nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
    ).eval()
    buf = io.BytesIO()
    torch.jit.save(torch.jit.trace(net, torch.randn(1, 3, 32, 32)), buf)
    buf.seek(0)
    return buf


class Probe(nn.Module):
    def __init__(self, backbone, classes=5):
        super().__init__()
        self.backbone = backbone
        self.head = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, classes))

    def forward(self, x):
        with torch.no_grad():
            feats = self.backbone(x)
        return self.head(feats)


backbone = torch.jit.freeze(torch.jit.load(exported_backbone()))
model = Probe(backbone)
opt = torch.optim.SGD(model.head.parameters(), lr=0.1, momentum=0.9)
cmodel = torch.compile(model, backend="aot_eager")

images = torch.randn(160, 3, 32, 32)
labels = torch.arange(160) % 5
images += labels.view(-1, 1, 1, 1) * 0.3
for epoch in range(4):
    total = 0.0
    for i in range(0, 160, 32):
        loss = F.cross_entropy(cmodel(images[i:i + 32]), labels[i:i + 32])
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
    print(f"epoch {epoch}: loss {total / 5:.4f}")
