"""FIX CHECK: @torch.compiler.disable on psd_safe_cholesky: the try/except runs eagerly, so the jitter retry works."""
"""Exact GP regression (RBF kernel) fit by maximising the marginal likelihood; Cholesky with a jitter retry, compiled."""
import math

import torch
import torch.nn.functional as F

torch.manual_seed(0)

# noise-free simulator outputs (float64, as GP libraries recommend); several inputs were evaluated twice
x_unique = torch.linspace(0, 6, 30, dtype=torch.float64)
X = torch.cat([x_unique, x_unique[::3]]).unsqueeze(-1)
y = torch.sin(X.squeeze(-1)) + 0.05 * torch.randn(X.shape[0], dtype=torch.float64)


@torch.compiler.disable
def psd_safe_cholesky(K, jitter=1e-4):
    try:
        return torch.linalg.cholesky(K)
    except RuntimeError:
        return torch.linalg.cholesky(K + jitter * torch.eye(K.shape[-1], dtype=K.dtype))


def neg_mll(raw, X, y):
    lengthscale, outputscale, noise = F.softplus(raw[0]), F.softplus(raw[1]), F.softplus(raw[2])
    d2 = torch.cdist(X, X).pow(2)
    K = outputscale * torch.exp(-0.5 * d2 / lengthscale ** 2) + noise * torch.eye(X.shape[0], dtype=X.dtype)
    L = psd_safe_cholesky(K)
    alpha = torch.cholesky_solve(y.unsqueeze(-1), L)
    n = X.shape[0]
    return 0.5 * (y @ alpha.squeeze(-1)) + L.diagonal().log().sum() + 0.5 * n * math.log(2 * math.pi)


raw = torch.tensor([0.5, 0.5, -40.0], dtype=torch.float64, requires_grad=True)
opt = torch.optim.Adam([raw], lr=0.1)
loss_fn = torch.compile(neg_mll, backend="aot_eager")
for step in range(60):
    loss = loss_fn(raw, X, y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 20 == 19:
        print(f"step {step + 1}: nmll {loss.item():.4f}")
ls, os_, nz = F.softplus(raw).tolist()
print(f"lengthscale {ls:.4f} outputscale {os_:.4f} noise {nz:.3e}")
