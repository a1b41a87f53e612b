"""A mixture density network (Bishop, 1994) on the inverse-sine toy problem, x = y + 0.3 sin(2 pi y) + noise,
predicting y from x: the network outputs mixture logits, means and log-scales, and the loss is the negative
log-likelihood of a torch.distributions.MixtureSameFamily of Normals, computed in the compiled loss function."""
import math

import torch
import torch.distributions as D
from torch import nn

torch.manual_seed(0)
K = 5


class MDN(nn.Module):
    def __init__(self, hidden=64):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(1, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh())
        self.head = nn.Linear(hidden, 3 * K)

    def forward(self, x):
        logits, mu, log_sigma = self.head(self.body(x)).chunk(3, dim=-1)
        return logits, mu, log_sigma.clamp(-5, 3)


def mixture(logits, mu, log_sigma):
    return D.MixtureSameFamily(D.Categorical(logits=logits), D.Normal(mu, log_sigma.exp()))


model = MDN()


@torch.compile(backend="aot_eager")
def nll_loss(x, y):
    logits, mu, log_sigma = model(x)
    return -mixture(logits, mu, log_sigma).log_prob(y.squeeze(-1)).mean()


def main():
    y = torch.rand(4096, 1) * 2 - 1
    x = y + 0.3 * torch.sin(2 * math.pi * y) + 0.05 * torch.randn_like(y)
    opt = torch.optim.Adam(model.parameters(), lr=5e-3)
    for epoch in range(30):
        perm = torch.randperm(4096)
        for i in range(0, 4096, 512):
            idx = perm[i:i + 512]
            loss = nll_loss(x[idx], y[idx])
            opt.zero_grad()
            loss.backward()
            opt.step()
        if epoch % 10 == 9:
            print(f"epoch {epoch + 1} nll {loss.item():.4f}")
    with torch.no_grad():
        probe = torch.tensor([[-0.5], [0.0], [0.5]])
        logits, mu, _ = model(probe)
        for xv, w, m in zip(probe[:, 0].tolist(), logits.softmax(-1).tolist(), mu.tolist()):
            top = max(range(K), key=lambda k: w[k])
            print(f"x={xv:+.1f}: heaviest component weight {w[top]:.3f} mean {m[top]:+.3f}")


if __name__ == "__main__":
    main()
