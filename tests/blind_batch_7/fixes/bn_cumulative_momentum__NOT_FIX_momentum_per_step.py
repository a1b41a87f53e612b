"""NOT_FIX: same cumulative average through a Python float, bn.momentum = 1 / (batches seen + 1) set before every step (BN built with momentum=1.0).
A tabular MLP with BatchNorm1d(momentum=None): the docs' "cumulative moving average" of the batch statistics
(running stats equal to the plain mean over every training batch seen), used here so that evaluation does not depend
on a momentum value. The model is compiled once and trained; the evaluation uses the running statistics."""
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
N_FEATURES, N_CLASSES = 20, 3


class TabularMLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(
            nn.Linear(N_FEATURES, 64), nn.BatchNorm1d(64, momentum=1.0), nn.ReLU(),
            nn.Linear(64, 64), nn.BatchNorm1d(64, momentum=1.0), nn.ReLU(),
            nn.Linear(64, N_CLASSES),
        )

    def forward(self, x):
        return self.net(x)


def make_data(n):
    x = torch.randn(n, N_FEATURES) * torch.linspace(0.5, 3.0, N_FEATURES) + 1.0
    y = (x[:, :3].sum(1) > 3).long() + (x[:, 3] > 2).long()
    return x, y


def main():
    model = TabularMLP()
    compiled = torch.compile(model, backend="aot_eager")
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    x_train, y_train = make_data(4096)
    x_val, y_val = make_data(1024)
    for epoch in range(3):
        model.train()
        perm = torch.randperm(x_train.size(0))
        for i in range(0, x_train.size(0), 128):
            idx = perm[i:i + 128]
            for m in model.modules():
                if isinstance(m, nn.BatchNorm1d):
                    m.momentum = 1.0 / (int(m.num_batches_tracked) + 1)
            loss = F.cross_entropy(compiled(x_train[idx]), y_train[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
        model.eval()
        with torch.no_grad():
            acc = (compiled(x_val).argmax(1) == y_val).float().mean().item()
        print(f"epoch {epoch} loss {loss.item():.4f} val acc {acc:.4f}")
    bn = model.net[1]
    print(f"batches tracked {int(bn.num_batches_tracked)} running_mean[:3] {[round(v, 4) for v in bn.running_mean[:3].tolist()]}")


if __name__ == "__main__":
    main()
