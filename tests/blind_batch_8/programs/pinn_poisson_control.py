"""Physics-informed neural network for the 2-D Poisson equation -lap(u) = f on the unit square with u = 0 on
the boundary, written the torch.func way (functional_call + vmap(hessian)) as in the PINN tutorials. The
residual loss is compiled; Adam trains the network."""
import math

import torch
import torch.nn as nn
from torch.func import functional_call, hessian, vmap

torch.manual_seed(0)

net = nn.Sequential(nn.Linear(2, 32), nn.Tanh(), nn.Linear(32, 32), nn.Tanh(), nn.Linear(32, 1))


def u(params, xy):
    return functional_call(net, params, (xy,)).squeeze(-1)


def source(xy):
    return 2 * math.pi ** 2 * torch.sin(math.pi * xy[..., 0]) * torch.sin(math.pi * xy[..., 1])


@torch.compile(backend="aot_eager")
def pinn_loss(params, interior, boundary):
    H = vmap(hessian(u, argnums=1), in_dims=(None, 0))(params, interior)
    laplacian = H.diagonal(dim1=-2, dim2=-1).sum(-1)
    residual = (-laplacian - source(interior)).pow(2).mean()
    boundary_loss = u(params, boundary).pow(2).mean()
    return residual + 10.0 * boundary_loss, residual


def main():
    params = dict(net.named_parameters())
    opt = torch.optim.Adam(params.values(), lr=3e-3)
    t = torch.rand(64)
    zeros, ones = torch.zeros(64), torch.ones(64)
    boundary = torch.cat([torch.stack(p, 1) for p in ((t, zeros), (t, ones), (zeros, t), (ones, t))])
    for step in range(151):
        interior = torch.rand(128, 2)
        loss, residual = pinn_loss(params, interior, boundary)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 50 == 0:
            print(f"step {step}: loss {loss.item():.4f} residual {residual.item():.4f}")
    grid = torch.stack(torch.meshgrid(torch.linspace(0, 1, 21), torch.linspace(0, 1, 21), indexing="ij"), -1).reshape(-1, 2)
    with torch.no_grad():
        exact = torch.sin(math.pi * grid[:, 0]) * torch.sin(math.pi * grid[:, 1])
        err = (u(params, grid) - exact).abs().max().item()
    print(f"max error on 21x21 grid: {err:.4f}")


if __name__ == "__main__":
    main()
