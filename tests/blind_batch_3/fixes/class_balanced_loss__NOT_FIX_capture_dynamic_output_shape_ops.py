"""Training on an imbalanced dataset with class-balanced cross-entropy: the class weights are
recomputed from each batch's label counts with torch.bincount inside the compiled loss step."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
torch._dynamo.config.capture_dynamic_output_shape_ops = True
NUM_CLASSES, DIM = 5, 20
PRIORS = torch.tensor([0.55, 0.2, 0.12, 0.08, 0.05])


CENTERS = torch.randn(NUM_CLASSES, DIM, generator=torch.Generator().manual_seed(1))


def make_data(n):
    y = torch.multinomial(PRIORS, n, replacement=True)
    return CENTERS[y] + 1.5 * torch.randn(n, DIM), y


model = nn.Sequential(nn.Linear(DIM, 64), nn.ReLU(), nn.Linear(64, NUM_CLASSES))
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)


@torch.compile(backend="aot_eager")
def train_step(x, y):
    logits = model(x)
    counts = torch.bincount(y, minlength=NUM_CLASSES).float()
    weights = counts.sum() / (NUM_CLASSES * counts.clamp(min=1.0))
    loss = F.cross_entropy(logits, y, weight=weights)
    return loss, logits


x_train, y_train = make_data(4096)
x_test, y_test = make_data(1024)
for epoch in range(4):
    perm = torch.randperm(len(x_train))
    for i in range(0, len(x_train), 128):
        idx = perm[i:i + 128]
        loss, logits = train_step(x_train[idx], y_train[idx])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    with torch.no_grad():
        pred = model(x_test).argmax(1)
    per_class = torch.stack([(pred[y_test == c] == c).float().mean() for c in range(NUM_CLASSES)])
    print(f"epoch {epoch}  loss {loss.item():.4f}  per-class recall {[round(v, 3) for v in per_class.tolist()]}")
