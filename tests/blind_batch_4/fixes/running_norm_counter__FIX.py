"""FIX: keep the batch counter in a buffer (as nn.BatchNorm does with num_batches_tracked) and compute the
momentum with tensor ops, so the counter is graph data instead of a constant guarded on every call.
Tabular classifier with an input normaliser that keeps a cumulative moving average of the feature mean and
variance during training (like BatchNorm with momentum=None): the update weight is 1 / number of batches seen,
floored at 0.01, and the batch counter is a plain attribute on the module."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
NUM_FEATURES, NUM_CLASSES = 20, 3


class RunningNormalizer(nn.Module):
    def __init__(self, num_features, min_momentum=0.01, eps=1e-5):
        super().__init__()
        self.register_buffer("running_mean", torch.zeros(num_features))
        self.register_buffer("running_var", torch.ones(num_features))
        self.register_buffer("num_batches_seen", torch.tensor(0, dtype=torch.long))
        self.min_momentum = min_momentum
        self.eps = eps

    def forward(self, x):
        if self.training:
            self.num_batches_seen += 1
            momentum = torch.clamp(1.0 / self.num_batches_seen.double(), min=self.min_momentum)  # float64 like the Python float
            with torch.no_grad():
                self.running_mean.mul_(1 - momentum).add_(momentum * x.mean(0))
                self.running_var.mul_(1 - momentum).add_(momentum * x.var(0))
        return (x - self.running_mean) / torch.sqrt(self.running_var + self.eps)


class TabularNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = RunningNormalizer(NUM_FEATURES)
        self.mlp = nn.Sequential(nn.Linear(NUM_FEATURES, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(),
                                 nn.Linear(64, NUM_CLASSES))

    def forward(self, x):
        return self.mlp(self.norm(x))


# features on very different scales, labels from a linear rule
scales = torch.logspace(-2, 2, NUM_FEATURES)
w_true = torch.randn(NUM_FEATURES, NUM_CLASSES)
X = torch.randn(4096, NUM_FEATURES) * scales + 3.0
y = ((X - 3.0) / scales @ w_true).argmax(1)

model = TabularNet()
compiled = torch.compile(model, backend="aot_eager")
opt = torch.optim.Adam(model.parameters(), lr=2e-3)
for step in range(200):
    idx = torch.randint(0, 4096, (128,))
    loss = F.cross_entropy(compiled(X[idx]), y[idx])
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 50 == 0:
        print(f"step {step:3d}  loss {loss.item():.4f}")

model.eval()
with torch.no_grad():
    acc = (compiled(X).argmax(1) == y).float().mean().item()
print(f"batches seen by the normaliser: {int(model.norm.num_batches_seen)}")
print(f"running mean of feature 0: {model.norm.running_mean[0].item():.4f}")
print(f"train accuracy: {acc:.4f}")
