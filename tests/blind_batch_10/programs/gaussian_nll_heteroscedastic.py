"""Heteroscedastic regression: the network predicts a mean and a variance, trained with F.gaussian_nll_loss."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class MeanVarianceNet(nn.Module):
    def __init__(self, d_in=6, hidden=64):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(d_in, hidden), nn.SiLU(), nn.Linear(hidden, hidden), nn.SiLU())
        self.mean = nn.Linear(hidden, 1)
        self.log_var = nn.Linear(hidden, 1)

    def forward(self, x):
        h = self.body(x)
        return self.mean(h), self.log_var(h).exp()


model = MeanVarianceNet()
opt = torch.optim.Adam(model.parameters(), lr=3e-3)


@torch.compile(backend="aot_eager")
def nll_step(x, y):
    mean, var = model(x)
    loss = F.gaussian_nll_loss(mean, y, var, full=True)
    return loss, var.mean()


X = torch.randn(2048, 6)
noise_scale = 0.1 + 0.5 * X[:, :1].abs()
Y = X.sum(dim=1, keepdim=True).sin() + noise_scale * torch.randn(2048, 1)

for epoch in range(4):
    perm = torch.randperm(2048)
    for i in range(0, 2048, 128):
        idx = perm[i:i + 128]
        loss, mvar = nll_step(X[idx], Y[idx])
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"epoch {epoch}: nll {loss.item():.4f} mean var {mvar.item():.4f}")
