"""Evaluation step compiled together with torchmetrics' functional multiclass accuracy and F1."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torchmetrics.functional.classification import multiclass_accuracy, multiclass_f1_score

torch.manual_seed(0)
NUM_CLASSES = 5

model = nn.Sequential(nn.Linear(20, 64), nn.ReLU(), nn.Linear(64, NUM_CLASSES))
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
X = torch.randn(1024, 20)
Y = (X[:, :NUM_CLASSES] + 0.3 * torch.randn(1024, NUM_CLASSES)).argmax(dim=1)
X_val, Y_val = X[768:], Y[768:]


@torch.compile(backend="aot_eager")
def eval_step(x, y):
    logits = model(x)
    loss = F.cross_entropy(logits, y)
    acc = multiclass_accuracy(logits, y, num_classes=NUM_CLASSES)
    f1 = multiclass_f1_score(logits, y, num_classes=NUM_CLASSES, average="macro")
    return loss, acc, f1


for epoch in range(3):
    model.train()
    for i in range(0, 768, 64):
        loss = F.cross_entropy(model(X[i:i + 64]), Y[i:i + 64])
        opt.zero_grad()
        loss.backward()
        opt.step()
    model.eval()
    with torch.no_grad():
        val_loss, acc, f1 = eval_step(X_val, Y_val)
    print(f"epoch {epoch}: val loss {val_loss.item():.4f} acc {acc.item():.4f} macro-f1 {f1.item():.4f}")
