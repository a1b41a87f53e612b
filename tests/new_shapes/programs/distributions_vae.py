"""A VAE's loss with torch.distributions, as its docs show: a Normal posterior, rsample, and the KL divergence to the
prior from kl_divergence, in a compiled loss."""

import torch
from torch.distributions import Normal, kl_divergence

torch.manual_seed(0)
encoder = torch.nn.Linear(20, 8)
decoder = torch.nn.Linear(4, 20)
opt = torch.optim.Adam([*encoder.parameters(), *decoder.parameters()], lr=1e-3)


@torch.compile(backend="aot_eager")
def vae_loss(x):
    mu, log_sigma = encoder(x).chunk(2, dim=-1)
    posterior = Normal(mu, log_sigma.exp())
    z = posterior.rsample()
    recon = torch.nn.functional.mse_loss(decoder(z), x)
    prior = Normal(torch.zeros_like(mu), torch.ones_like(mu))
    kl = kl_divergence(posterior, prior).sum(-1).mean()  # EXPECT: the KL lookup
    return recon + kl


x = torch.randn(16, 20)
for _ in range(3):
    opt.zero_grad()
    loss = vae_loss(x)
    loss.backward()
    opt.step()
print(f"loss {loss.item():.4f}")
