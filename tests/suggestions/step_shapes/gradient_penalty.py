"""A WGAN-GP critic step: the gradient penalty takes torch.autograd.grad(..., create_graph=True) inside the
compiled loss, and backward() differentiates it again."""
import torch
import torch.nn as nn

torch.manual_seed(0)
critic = nn.Sequential(nn.Linear(16, 64), nn.LeakyReLU(0.2), nn.Linear(64, 1))
opt = torch.optim.Adam(critic.parameters(), lr=1e-4, betas=(0.0, 0.9))


def gradient_penalty(critic, real, fake):
    alpha = torch.rand(real.size(0), 1)
    mixed = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    score = critic(mixed)
    grad = torch.autograd.grad(outputs=score, inputs=mixed, grad_outputs=torch.ones_like(score),
                               create_graph=True, retain_graph=True)[0]
    return ((grad.norm(2, dim=1) - 1) ** 2).mean()


@torch.compile(backend="aot_eager")
def critic_loss(real, fake):
    return critic(fake).mean() - critic(real).mean() + 10.0 * gradient_penalty(critic, real, fake)


for step in range(6):
    real, fake = torch.randn(32, 16), torch.randn(32, 16)
    loss = critic_loss(real, fake)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(f"step {step} critic loss {loss.item():.4f}")
