"""FIX CHECK: the scipy Bessel call is a torch.library.custom_op (vmf::ive) with register_fake and register_autograd instead of an autograd.Function."""
"""von Mises-Fisher embedding loss whose log-normaliser calls scipy.special.ive through a custom autograd.Function."""
import numpy as np
import scipy.special
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
DIM = 16


@torch.library.custom_op("vmf::ive", mutates_args=())
def ive(v: float, z: torch.Tensor) -> torch.Tensor:
    """Exponentially scaled modified Bessel function of the first kind, I_v(z) * exp(-z), from scipy."""
    out = scipy.special.ive(v, z.detach().cpu().numpy().astype(np.float64))
    return torch.from_numpy(out).to(z)


@ive.register_fake
def _(v, z):
    return torch.empty_like(z)


def _ive_setup(ctx, inputs, output):
    v, z = inputs
    ctx.v = v
    ctx.save_for_backward(z, output)


def _ive_backward(ctx, grad):
    z, out = ctx.saved_tensors
    d = ive(ctx.v - 1, z) - out * (ctx.v + z) / z
    return None, grad * d


ive.register_autograd(_ive_backward, setup_context=_ive_setup)


def vmf_log_norm(kappa, dim=DIM):
    v = dim / 2 - 1
    return v * torch.log(kappa) - (dim / 2) * np.log(2 * np.pi) - torch.log(ive(v, kappa)) - kappa


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(32, 64), nn.ReLU(), nn.Linear(64, DIM + 1))

    def forward(self, x):
        h = self.net(x)
        mu = F.normalize(h[:, :DIM], dim=-1)
        kappa = F.softplus(h[:, DIM]) + 1.0
        return mu, kappa


def vmf_nll(model, x, target_dir):
    mu, kappa = model(x)
    return -(vmf_log_norm(kappa) + kappa * (mu * target_dir).sum(-1)).mean()


model = Encoder()
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
loss_fn = torch.compile(vmf_nll, backend="aot_eager")
proto = F.normalize(torch.randn(4, DIM), dim=-1)
x_all = torch.randn(256, 32)
y_all = torch.arange(256) % 4
for step in range(40):
    idx = torch.arange(step * 32, step * 32 + 32) % 256
    loss = loss_fn(model, x_all[idx], proto[y_all[idx]])
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 9:
        print(f"step {step + 1}: nll {loss.item():.4f}")
print(f"mean kappa {model(x_all)[1].mean().item():.3f}")
