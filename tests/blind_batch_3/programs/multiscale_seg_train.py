"""Segmentation training with scale augmentation done inside the model: every step draws a random
resize ratio (as mmseg's ratio_range=(0.5, 1.5)), the network runs at that scale and the logits are
resized back to the label size."""
import random

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
random.seed(0)


class TinySegNet(nn.Module):
    def __init__(self, num_classes=3):
        super().__init__()
        self.enc = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(),
            nn.Conv2d(16, 16, 3, padding=1), nn.ReLU(),
        )
        self.head = nn.Conv2d(16, num_classes, 1)

    def forward(self, x, scale=1.0):
        size = x.shape[-2:]
        if scale != 1.0:
            x = F.interpolate(x, scale_factor=scale, mode="bilinear", align_corners=False)
        logits = self.head(self.enc(x))
        return F.interpolate(logits, size=size, mode="bilinear", align_corners=False)


def make_batch(n=8, hw=32):
    # class = which third of the image a pixel is in, with a noisy image encoding it
    labels = torch.zeros(n, hw, hw, dtype=torch.long)
    labels[:, :, hw // 3: 2 * hw // 3] = 1
    labels[:, :, 2 * hw // 3:] = 2
    images = F.one_hot(labels, 3).permute(0, 3, 1, 2).float() + 0.5 * torch.randn(n, 3, hw, hw)
    return images, labels


model = TinySegNet()
model = torch.compile(model, backend="aot_eager")
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)

for step in range(40):
    images, labels = make_batch()
    scale = random.uniform(0.5, 1.5)
    logits = model(images, scale)
    loss = F.cross_entropy(logits, labels)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 0 or step == 39:
        print(f"step {step:2d}  scale {scale:.3f}  loss {loss.item():.4f}")

with torch.no_grad():
    images, labels = make_batch(16)
    acc = (model(images).argmax(1) == labels).float().mean().item()
print(f"pixel accuracy: {acc:.4f}")
