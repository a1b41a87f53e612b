"""Validation of an image-style classifier (a small CNN on synthetic 8x8 digits) with a compiled `validation_step`
that returns a ready-to-log metrics dict, formatting the values with f-strings inside the step, the way
Lightning-style `validation_step`s feed a progress bar / logger."""
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
N_CLASSES = 10


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 32, 3, padding=1),
                                      nn.ReLU(), nn.AdaptiveAvgPool2d(2))
        self.fc = nn.Linear(32 * 4, N_CLASSES)

    def forward(self, x):
        return self.fc(self.features(x).flatten(1))


model = SmallCNN()


@torch.compile(backend="aot_eager")
def validation_step(images, labels):
    logits = model(images)
    loss = F.cross_entropy(logits, labels)
    acc = (logits.argmax(-1) == labels).float().mean()
    return {"val_loss": f"{loss:.4f}", "val_acc": f"{acc:.2%}", "n": labels.numel()}


def make_data(n, templates):
    labels = torch.randint(0, N_CLASSES, (n,))
    images = templates[labels] + 0.8 * torch.randn(n, 1, 8, 8)
    return images, labels


def main():
    templates = torch.randn(N_CLASSES, 1, 8, 8)
    x_train, y_train = make_data(4096, templates)
    x_val, y_val = make_data(1000, templates)
    opt = torch.optim.Adam(model.parameters(), lr=2e-3)
    for epoch in range(3):
        model.train()
        for i in range(0, 4096, 64):
            loss = F.cross_entropy(model(x_train[i:i + 64]), y_train[i:i + 64])
            opt.zero_grad()
            loss.backward()
            opt.step()
        model.eval()
        logs = []
        with torch.no_grad():
            for i in range(0, 1000, 100):
                logs.append(validation_step(x_val[i:i + 100], y_val[i:i + 100]))
        print(f"epoch {epoch} first batch {logs[0]} last batch {logs[-1]}")


if __name__ == "__main__":
    main()
