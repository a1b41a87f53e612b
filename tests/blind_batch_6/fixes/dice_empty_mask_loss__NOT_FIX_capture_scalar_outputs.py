"""NOT_FIX: torch._dynamo.config.capture_scalar_outputs = True.
Binary segmentation of synthetic blobs with a small conv net and a per-image soft Dice + BCE loss, written as
many Kaggle kernels write it: loop over the images of the batch, and when an image's mask is empty (no foreground)
use a different term, since Dice is undefined there. The forward pass and the loss are one compiled function;
backward and Adam run outside it."""
import torch
import torch.nn.functional as F
from torch import nn
torch._dynamo.config.capture_scalar_outputs = True

torch.manual_seed(0)
H = W = 32


class TinySeg(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 16, 3, padding=1),
                                 nn.ReLU(), nn.Conv2d(16, 1, 1))

    def forward(self, x):
        return self.net(x)


def dice_bce_loss(logits, target, smooth=1.0):
    bce = F.binary_cross_entropy_with_logits(logits, target)
    probs = torch.sigmoid(logits)
    dice_terms = []
    for p, t in zip(probs, target):
        if t.sum() == 0:  # empty mask: penalise any predicted foreground
            dice_terms.append(p.mean())
        else:
            inter = (p * t).sum()
            dice_terms.append(1 - (2 * inter + smooth) / (p.sum() + t.sum() + smooth))
    return bce + torch.stack(dice_terms).mean()


model = TinySeg()
opt = torch.optim.Adam(model.parameters(), lr=3e-3)


@torch.compile(backend="aot_eager")
def forward_loss(images, masks):
    return dice_bce_loss(model(images), masks)


def make_batch(n):
    yy, xx = torch.meshgrid(torch.arange(H), torch.arange(W), indexing="ij")
    cy, cx, r = torch.randint(6, 26, (n, 1, 1)), torch.randint(6, 26, (n, 1, 1)), torch.randint(3, 7, (n, 1, 1))
    masks = (((yy - cy) ** 2 + (xx - cx) ** 2) < r ** 2).float()
    masks[torch.rand(n) < 0.3] = 0.0  # about 30% of the images have no object
    images = masks + 0.4 * torch.randn(n, H, W)
    return images.unsqueeze(1), masks.unsqueeze(1)


def main():
    for step in range(60):
        images, masks = make_batch(16)
        loss = forward_loss(images, masks)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 20 == 19:
            print(f"step {step + 1} loss {loss.item():.4f}")
    images, masks = make_batch(64)
    with torch.no_grad():
        pred = (model(images) > 0).float()
    inter = (pred * masks).sum().item()
    print(f"eval IoU {inter / ((pred + masks).clamp(max=1).sum().item()):.4f}")


if __name__ == "__main__":
    main()
