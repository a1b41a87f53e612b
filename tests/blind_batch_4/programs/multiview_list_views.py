"""Multi-view shape classification (MVCNN-style): each object is rendered from several viewpoints, a shared
CNN encodes every view and the features are max-pooled across views. Objects in this dataset come with a
different number of usable renders, so the loader groups objects by view count and passes the views as a
list of image batches."""
import random

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
random.seed(0)
NUM_CLASSES = 4


class MVCNN(nn.Module):
    def __init__(self, num_classes=NUM_CLASSES):
        super().__init__()
        self.encoder = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(4), nn.Flatten(),
        )
        self.classifier = nn.Sequential(nn.Linear(256, 64), nn.ReLU(), nn.Linear(64, num_classes))

    def forward(self, views):
        feats = torch.stack([self.encoder(v) for v in views], dim=1)  # (B, V, 256)
        pooled = feats.max(dim=1).values
        return self.classifier(pooled)


def make_batch(batch_size, n_views):
    # class c: a bright blob at row block c; each view sees it shifted a little, and some views are occluded
    labels = torch.randint(0, NUM_CLASSES, (batch_size,))
    views = []
    for k in range(n_views):
        img = 0.5 * torch.randn(batch_size, 1, 16, 16)
        col = (3 * k) % 12
        for i, c in enumerate(labels.tolist()):
            if random.random() < 0.7:
                img[i, :, 4 * c:4 * c + 4, col:col + 4] += 1.0
        views.append(img)
    return views, labels


model = MVCNN()
compiled = torch.compile(model, backend="aot_eager")
opt = torch.optim.Adam(model.parameters(), lr=3e-3)

for step in range(40):
    n_views = random.randint(2, 12)
    views, labels = make_batch(8, n_views)
    logits = compiled(views)
    loss = F.cross_entropy(logits, labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 0:
        print(f"step {step:2d}  views {n_views:2d}  loss {loss.item():.4f}")

correct = total = 0
for n_views in (3, 6, 12):
    views, labels = make_batch(16, n_views)
    with torch.no_grad():
        pred = compiled(views).argmax(1)
    correct += (pred == labels).sum().item()
    total += labels.numel()
print(f"eval accuracy over 3/6/12 views: {correct / total:.4f}")
