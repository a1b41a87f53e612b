"""A diffusion-style step: the timestep is a Python int drawn every step, made into a tensor inside the compiled
function and passed on to a module that takes an int or a tensor (as diffusers' UNet does)."""

import random

import torch
from torch import nn


class Denoiser(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Linear(8, 8)
        self.embed = nn.Embedding(1000, 8)

    def forward(self, x, timestep):
        if not torch.is_tensor(timestep):
            timestep = torch.tensor([timestep], dtype=torch.long, device=x.device)
        elif timestep.dim() == 0:
            timestep = timestep[None]
        return self.net(x + self.embed(timestep))


torch.manual_seed(0)
random.seed(0)
model = Denoiser()
alphas = torch.linspace(0.99, 0.5, 1000)


@torch.compile(backend="eager")
def train_step(x, t):
    scale = alphas.gather(0, torch.tensor([t], device=x.device))
    return model(x * scale, t).pow(2).mean()


if __name__ == "__main__":
    x = torch.randn(4, 8)
    for i in range(6):
        t = random.randint(0, 999)
        loss = train_step(x, t)
        print(i, t, f"{loss.item():.6f}")
