"""FIX: the jitter draws from the global random module (random.seed(SEED) once), which Dynamo replays per call, instead of a random.Random instance.
Image classifier trained with a brightness/contrast jitter written as a module, so that the
augmentation runs inside the compiled model in training mode (the "GPU augmentation" recipe). The jitter
draws its factors from its own seeded random.Random instance, the usual way to get an augmentation
stream independent of other code's use of the global random module."""
import random

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
SEED = 1234


class ColorJitter(nn.Module):
    def __init__(self, brightness=0.4, contrast=0.4, seed=SEED):
        super().__init__()
        self.brightness, self.contrast = brightness, contrast
        random.seed(seed)

    def forward(self, img):
        if not self.training:
            return img
        b = random.uniform(1 - self.brightness, 1 + self.brightness)
        c = random.uniform(1 - self.contrast, 1 + self.contrast)
        mean = img.mean(dim=(1, 2, 3), keepdim=True)
        return ((img * b - mean) * c + mean).clamp(0, 1)


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.augment = ColorJitter()
        self.features = nn.Sequential(
            nn.Conv2d(3, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten())
        self.fc = nn.Linear(32, 10)

    def forward(self, x):
        return self.fc(self.features(self.augment(x)))


def main():
    images = torch.rand(512, 3, 16, 16)
    labels = (images[:, 0].mean((1, 2)) * 10).long().clamp(0, 9)
    model = SmallCNN()
    compiled = torch.compile(model, backend="aot_eager")
    opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9)
    for epoch in range(8):
        model.train()
        perm = torch.randperm(len(images))
        total = 0.0
        for i in range(0, len(images), 32):
            idx = perm[i:i + 32]
            loss = F.cross_entropy(compiled(images[idx]), labels[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item()
        model.eval()
        with torch.no_grad():
            acc = (compiled(images).argmax(1) == labels).float().mean().item()
        print(f"epoch {epoch}: train loss {total / 16:.4f} accuracy {acc:.4f}")
    print(f"next jitter draw: {random.uniform(0, 1):.6f}")


if __name__ == "__main__":
    main()
