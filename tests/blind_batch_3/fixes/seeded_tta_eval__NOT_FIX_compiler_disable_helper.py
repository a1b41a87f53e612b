"""Evaluation with test-time augmentation: each batch is predicted under several noisy, randomly
flipped copies and the softmax outputs are averaged. For reproducibility the augmentation RNG is
re-seeded per batch inside the compiled predict function."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, 16, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
        )
        self.fc = nn.Linear(16, 4)

    def forward(self, x):
        return self.fc(self.features(x).flatten(1))


def make_images(n):
    # class c = a bright bar at row block c
    y = torch.randint(0, 4, (n,))
    img = 0.3 * torch.randn(n, 1, 16, 16)
    for c in range(4):
        img[y == c, :, 4 * c:4 * c + 4, :] += 1.0
    return img, y


model = SmallCNN()
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
x_train, y_train = make_images(1024)
for step in range(60):
    idx = torch.randint(0, 1024, (64,))
    loss = F.cross_entropy(model(x_train[idx]), y_train[idx])
    opt.zero_grad()
    loss.backward()
    opt.step()
model.eval()


@torch.compiler.disable
def seed_batch(seed):
    torch.manual_seed(seed)


@torch.compile(backend="aot_eager")
@torch.no_grad()
def predict_tta(images, batch_idx, n_aug=4):
    seed_batch(1000 + batch_idx)
    probs = F.softmax(model(images), dim=1)
    for _ in range(n_aug):
        flip = torch.rand(images.shape[0], 1, 1, 1) < 0.5
        aug = torch.where(flip, images.flip(-1), images) + 0.1 * torch.randn_like(images)
        probs = probs + F.softmax(model(aug), dim=1)
    return probs / (n_aug + 1)


x_test, y_test = make_images(16 * 32)
correct = 0
for batch_idx in range(16):
    xb, yb = x_test[batch_idx * 32:(batch_idx + 1) * 32], y_test[batch_idx * 32:(batch_idx + 1) * 32]
    probs = predict_tta(xb, batch_idx)
    correct += (probs.argmax(1) == yb).sum().item()
    if batch_idx % 5 == 0:
        print(f"batch {batch_idx:2d}  mean max-prob {probs.max(1).values.mean().item():.4f}")
print(f"TTA accuracy: {correct / len(y_test):.4f}")
