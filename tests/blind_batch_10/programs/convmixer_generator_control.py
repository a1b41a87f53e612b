"""ConvMixer-style image classifier: einops patch embedding, stages produced by a generator, a NamedTuple output,
compiled training step (aot_eager)."""
from typing import NamedTuple

import torch
import torch.nn as nn
import torch.nn.functional as F
from einops import rearrange, reduce

torch.manual_seed(0)


class ClassifierOutput(NamedTuple):
    logits: torch.Tensor
    features: torch.Tensor


class MixerBlock(nn.Module):
    def __init__(self, dim, kernel_size):
        super().__init__()
        self.depthwise = nn.Conv2d(dim, dim, kernel_size, groups=dim, padding=kernel_size // 2)
        self.pointwise = nn.Conv2d(dim, dim, 1)
        self.norm1, self.norm2 = nn.BatchNorm2d(dim), nn.BatchNorm2d(dim)

    def forward(self, x):
        x = x + self.norm1(F.gelu(self.depthwise(x)))
        return self.norm2(F.gelu(self.pointwise(x)))


class ConvMixer(nn.Module):
    def __init__(self, dim=48, depth=4, patch=4, num_classes=10):
        super().__init__()
        self.patch = patch
        self.embed = nn.Linear(3 * patch * patch, dim)
        self.blocks = nn.ModuleList(MixerBlock(dim, 5 if i % 2 else 3) for i in range(depth))
        self.head = nn.Linear(dim, num_classes)

    def stages(self):
        for i, block in enumerate(self.blocks):
            yield i, block

    def forward(self, images):
        h = rearrange(images, "b c (h p1) (w p2) -> b h w (c p1 p2)", p1=self.patch, p2=self.patch)
        h = rearrange(self.embed(h), "b h w d -> b d h w")
        for i, block in self.stages():
            h = block(h)
        feats = reduce(h, "b d h w -> b d", "mean")
        return ClassifierOutput(logits=self.head(feats), features=feats)


model = ConvMixer()
opt = torch.optim.AdamW(model.parameters(), lr=2e-3)


@torch.compile(backend="aot_eager")
def train_step(images, labels):
    out = model(images)
    loss = F.cross_entropy(out.logits, labels, label_smoothing=0.1)
    return loss, out.features.norm(dim=1).mean()


images = torch.randn(512, 3, 32, 32)
labels = (images[:, 0, :16, :16].mean((1, 2)) * 20).long().clamp(-5, 4) + 5
for epoch in range(2):
    for i in range(0, 512, 64):
        loss, fnorm = train_step(images[i:i + 64], labels[i:i + 64])
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch}: loss {loss.item():.4f} feature norm {fnorm.item():.4f}")
