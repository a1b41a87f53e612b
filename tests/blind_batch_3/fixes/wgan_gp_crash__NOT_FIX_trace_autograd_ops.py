"""WGAN-GP (Gulrajani et al.) on 2-D data with the critic compiled. The gradient penalty takes the
critic's gradient at interpolated points with torch.autograd.grad(create_graph=True), as in the
paper's reference implementation."""
import torch
import torch.nn as nn

torch.manual_seed(0)
torch._dynamo.config.trace_autograd_ops = True
LAMBDA_GP, N_CRITIC, BATCH = 10.0, 5, 128


def real_batch(n):
    return torch.randn(n, 2) * 0.5 + torch.tensor([1.0, -1.0])


generator = nn.Sequential(nn.Linear(4, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 2))
critic = nn.Sequential(nn.Linear(2, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 1))
critic = torch.compile(critic, backend="aot_eager")
opt_g = torch.optim.Adam(generator.parameters(), lr=1e-3, betas=(0.5, 0.9))
opt_c = torch.optim.Adam(critic.parameters(), lr=1e-3, betas=(0.5, 0.9))


def gradient_penalty(critic, real, fake):
    alpha = torch.rand(real.size(0), 1)
    interpolates = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    scores = critic(interpolates)
    gradients = torch.autograd.grad(
        outputs=scores, inputs=interpolates, grad_outputs=torch.ones_like(scores),
        create_graph=True, retain_graph=True,
    )[0]
    return ((gradients.norm(2, dim=1) - 1) ** 2).mean()


for it in range(40):
    for _ in range(N_CRITIC):
        real = real_batch(BATCH)
        fake = generator(torch.randn(BATCH, 4)).detach()
        loss_c = critic(fake).mean() - critic(real).mean() + LAMBDA_GP * gradient_penalty(critic, real, fake)
        opt_c.zero_grad()
        loss_c.backward()
        opt_c.step()
    loss_g = -critic(generator(torch.randn(BATCH, 4))).mean()
    opt_g.zero_grad()
    loss_g.backward()
    opt_g.step()
    if it % 10 == 0 or it == 39:
        print(f"iter {it:2d}  critic loss {loss_c.item():.4f}  generator loss {loss_g.item():.4f}")

with torch.no_grad():
    print("generated mean:", [round(v, 3) for v in generator(torch.randn(2000, 4)).mean(0).tolist()])
