"""A tiny DDPM on 2-D points, after "The Annotated Diffusion Model": train the noise predictor, then
sample with p_sample. Sampling is compiled and uses a seeded torch.Generator so that the samples are
reproducible (as diffusers pipelines take generator=)."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
T = 50
betas = torch.linspace(1e-4, 0.05, T)
alphas = 1.0 - betas
alphas_cumprod = torch.cumprod(alphas, dim=0)
alphas_cumprod_prev = F.pad(alphas_cumprod[:-1], (1, 0), value=1.0)
sqrt_recip_alphas = torch.sqrt(1.0 / alphas)
sqrt_alphas_cumprod = torch.sqrt(alphas_cumprod)
sqrt_one_minus_alphas_cumprod = torch.sqrt(1.0 - alphas_cumprod)
posterior_variance = betas * (1.0 - alphas_cumprod_prev) / (1.0 - alphas_cumprod)


def extract(a, t, x_shape):
    out = a.gather(-1, t)
    return out.reshape(t.shape[0], *((1,) * (len(x_shape) - 1)))


class Denoiser(nn.Module):
    def __init__(self):
        super().__init__()
        self.t_embed = nn.Embedding(T, 32)
        self.net = nn.Sequential(nn.Linear(2 + 32, 128), nn.SiLU(), nn.Linear(128, 128), nn.SiLU(), nn.Linear(128, 2))

    def forward(self, x, t):
        return self.net(torch.cat([x, self.t_embed(t)], dim=1))


def data(n):
    # two gaussian blobs
    centers = torch.tensor([[-2.0, 0.0], [2.0, 0.0]])
    return centers[torch.randint(0, 2, (n,))] + 0.3 * torch.randn(n, 2)


model = Denoiser()
opt = torch.optim.Adam(model.parameters(), lr=2e-3)
for step in range(400):
    x0 = data(256)
    t = torch.randint(0, T, (256,))
    noise = torch.randn_like(x0)
    x_t = extract(sqrt_alphas_cumprod, t, x0.shape) * x0 + extract(sqrt_one_minus_alphas_cumprod, t, x0.shape) * noise
    loss = F.mse_loss(model(x_t, t), noise)
    opt.zero_grad()
    loss.backward()
    opt.step()
print(f"final training loss: {loss.item():.4f}")


@torch.compile(backend="aot_eager")
@torch.no_grad()
def p_sample(model, x, t, t_index, generator):
    betas_t = extract(betas, t, x.shape)
    sqrt_one_minus_alphas_cumprod_t = extract(sqrt_one_minus_alphas_cumprod, t, x.shape)
    sqrt_recip_alphas_t = extract(sqrt_recip_alphas, t, x.shape)
    model_mean = sqrt_recip_alphas_t * (x - betas_t * model(x, t) / sqrt_one_minus_alphas_cumprod_t)
    if t_index == 0:
        return model_mean
    posterior_variance_t = extract(posterior_variance, t, x.shape)
    noise = torch.randn(x.shape, generator=generator)
    return model_mean + torch.sqrt(posterior_variance_t) * noise


def sample(model, n, seed):
    generator = torch.Generator().manual_seed(seed)
    x = torch.randn((n, 2), generator=generator)
    for i in reversed(range(T)):
        t = torch.full((n,), i, dtype=torch.long)
        x = p_sample(model, x, t, i, generator)
    return x


model.eval()
samples = sample(model, 512, seed=1234)
print(f"fraction of samples right of 0: {(samples[:, 0] > 0).float().mean().item():.3f}")
print(f"mean |x|: {samples[:, 0].abs().mean().item():.3f}  std y: {samples[:, 1].std().item():.3f}")
again = sample(model, 512, seed=1234)
print(f"same seed reproduces: {torch.equal(samples, again)}")
