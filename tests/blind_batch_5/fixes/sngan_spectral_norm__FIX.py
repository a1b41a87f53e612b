"""FIX (a check of the cause, not a speed-up): backend="eager" (Dynamo only, no AOTAutograd): the printed numbers equal eager's.
SNGAN on a 2-D ring of Gaussians (Miyato et al. 2018): the discriminator's layers are wrapped with
torch.nn.utils.spectral_norm, as in the reference implementations and the PyTorch DCGAN variants (a forward
pre-hook runs one power iteration per call and updates the u vector buffer). Both networks are compiled; hinge
loss, Adam(0.0, 0.9) as in the paper."""
import math

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils import spectral_norm

torch.manual_seed(0)


def sample_ring(n, modes=8, radius=2.0, std=0.05):
    k = torch.randint(0, modes, (n,))
    angle = k.float() * (2 * math.pi / modes)
    centers = torch.stack([radius * torch.cos(angle), radius * torch.sin(angle)], dim=1)
    return centers + std * torch.randn(n, 2)


class Generator(nn.Module):
    def __init__(self, z_dim=16, hidden=128):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(z_dim, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU(),
                                 nn.Linear(hidden, 2))

    def forward(self, z):
        return self.net(z)


class Discriminator(nn.Module):
    def __init__(self, hidden=128):
        super().__init__()
        self.fc1 = spectral_norm(nn.Linear(2, hidden))
        self.fc2 = spectral_norm(nn.Linear(hidden, hidden))
        self.fc3 = spectral_norm(nn.Linear(hidden, 1))

    def forward(self, x):
        h = F.leaky_relu(self.fc1(x), 0.1)
        h = F.leaky_relu(self.fc2(h), 0.1)
        return self.fc3(h)


def main():
    G, D = Generator(), Discriminator()
    G_c = torch.compile(G, backend="eager")
    D_c = torch.compile(D, backend="eager")
    opt_g = torch.optim.Adam(G.parameters(), lr=2e-4, betas=(0.0, 0.9))
    opt_d = torch.optim.Adam(D.parameters(), lr=2e-4, betas=(0.0, 0.9))
    batch = 128
    for it in range(150):
        real = sample_ring(batch)
        fake = G_c(torch.randn(batch, 16)).detach()
        d_loss = F.relu(1.0 - D_c(real)).mean() + F.relu(1.0 + D_c(fake)).mean()
        opt_d.zero_grad()
        d_loss.backward()
        opt_d.step()

        g_loss = -D_c(G_c(torch.randn(batch, 16))).mean()
        opt_g.zero_grad()
        g_loss.backward()
        opt_g.step()
        if it % 50 == 0 or it == 149:
            print(f"iter {it:3d} d_loss {d_loss.item():.4f} g_loss {g_loss.item():.4f}")
    with torch.no_grad():
        samples = G(torch.randn(2000, 16))
    radius = samples.norm(dim=1)
    print(f"sample radius mean {radius.mean().item():.4f} std {radius.std().item():.4f}")
    print(f"sigma(fc2) estimate {torch.dot(D.fc2.weight_u, D.fc2.weight_orig @ D.fc2.weight_v).item():.4f}")


if __name__ == "__main__":
    main()
