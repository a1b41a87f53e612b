"""A defensive regression model as careful research code writes it: forward checks the input shape with an assert
(f-string message) and checks the prediction with `assert torch.isfinite(mean).all()`; the heteroscedastic Gaussian
NLL (written out, as in the Nix & Weigend / deep-ensembles papers) asserts the predicted variance is positive.
Model and loss are compiled together with the default backend."""
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
D_IN = 8


class HeteroscedasticRegressor(nn.Module):
    def __init__(self, d_in=D_IN, d_hidden=64):
        super().__init__()
        self.d_in = d_in
        self.body = nn.Sequential(nn.Linear(d_in, d_hidden), nn.Tanh(), nn.Linear(d_hidden, d_hidden), nn.Tanh())
        self.mean = nn.Linear(d_hidden, 1)
        self.log_var = nn.Linear(d_hidden, 1)

    def forward(self, x):
        assert x.dim() == 2 and x.shape[1] == self.d_in, f"expected (B, {self.d_in}), got {tuple(x.shape)}"
        h = self.body(x)
        mean, var = self.mean(h), F.softplus(self.log_var(h)) + 1e-4
        assert torch.isfinite(mean).all(), "non-finite prediction"
        return mean, var


model = HeteroscedasticRegressor()


@torch.compile
def loss_fn(x, y):
    mean, var = model(x)
    assert (var > 0).all(), "variance must be positive"
    return 0.5 * (torch.log(var) + (y - mean) ** 2 / var).mean()


def main():
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    x = torch.rand(2048, D_IN) * 4 - 2
    noise = 0.05 + 0.3 * x[:, :1].abs()
    y = torch.sin(2 * x[:, :1]) + x[:, 1:2] ** 2 * 0.3 + noise * torch.randn(2048, 1)
    for epoch in range(4):
        for i in range(0, 2048, 256):
            loss = loss_fn(x[i:i + 256], y[i:i + 256])
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(f"epoch {epoch} nll {loss.item():.4f}")
    with torch.no_grad():
        mean, var = model(x[:4])
    print("predicted std", [round(v, 3) for v in var.sqrt().squeeze(1).tolist()])


if __name__ == "__main__":
    main()
