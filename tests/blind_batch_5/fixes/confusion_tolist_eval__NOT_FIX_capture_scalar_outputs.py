"""NOT_FIX: torch._dynamo.config.capture_scalar_outputs = True, the .tolist() loop unchanged.
Evaluation of an image-like classifier with a confusion matrix, per-class recall and macro-F1, the metric written
the way many training repositories write their evaluate(): the compiled eval step converts targets and predictions
to Python lists with .tolist() and counts them into a list-of-lists confusion matrix."""
import torch
import torch.nn.functional as F
from torch import nn

torch._dynamo.config.capture_scalar_outputs = True
torch.manual_seed(0)
NUM_CLASSES = 6


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 16, 3, padding=1)
        self.conv2 = nn.Conv2d(16, 32, 3, padding=1)
        self.fc = nn.Linear(32 * 4 * 4, NUM_CLASSES)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        return self.fc(x.flatten(1))


def make_data(n, g):
    # each class is a fixed random 16x16 template plus noise
    templates = torch.randn(NUM_CLASSES, 1, 16, 16, generator=torch.Generator().manual_seed(123))
    y = torch.randint(0, NUM_CLASSES, (n,), generator=g)
    return templates[y] + 1.5 * torch.randn(n, 1, 16, 16, generator=g), y


model = SmallCNN()
confusion = [[0] * NUM_CLASSES for _ in range(NUM_CLASSES)]


@torch.compile(backend="aot_eager")
def eval_step(images, targets):
    logits = model(images)
    preds = logits.argmax(dim=1)
    for t, p in zip(targets.tolist(), preds.tolist()):
        confusion[t][p] += 1
    return F.cross_entropy(logits, targets, reduction="sum")


def main():
    g = torch.Generator().manual_seed(0)
    x_train, y_train = make_data(2048, g)
    x_val, y_val = make_data(1024, g)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for epoch in range(2):
        perm = torch.randperm(2048, generator=g)
        for i in range(0, 2048, 64):
            idx = perm[i:i + 64]
            loss = F.cross_entropy(model(x_train[idx]), y_train[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(f"epoch {epoch} train loss {loss.item():.4f}")

    model.eval()
    total_loss = 0.0
    with torch.no_grad():
        for i in range(0, 1024, 64):
            total_loss += eval_step(x_val[i:i + 64], y_val[i:i + 64]).item()
    recalls = [confusion[c][c] / max(1, sum(confusion[c])) for c in range(NUM_CLASSES)]
    precisions = [confusion[c][c] / max(1, sum(row[c] for row in confusion)) for c in range(NUM_CLASSES)]
    f1 = [2 * p * r / (p + r) if p + r else 0.0 for p, r in zip(precisions, recalls)]
    print(f"val loss {total_loss / 1024:.4f} accuracy {sum(confusion[c][c] for c in range(NUM_CLASSES)) / 1024:.4f}")
    print("recall per class: " + " ".join(f"{r:.3f}" for r in recalls))
    print(f"macro F1 {sum(f1) / NUM_CLASSES:.4f}")


if __name__ == "__main__":
    main()
