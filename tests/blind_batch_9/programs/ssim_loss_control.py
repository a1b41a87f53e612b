"""Denoising autoencoder (the clean control) trained with an SSIM + L1 loss from torchmetrics' functional API, compiled step."""
import torch
import torch.nn as nn
from torchmetrics.functional.image import structural_similarity_index_measure as ssim

torch.manual_seed(0)


class DAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.Conv2d(16, 16, 3, stride=2, padding=1), nn.ReLU())
        self.dec = nn.Sequential(nn.ConvTranspose2d(16, 16, 4, stride=2, padding=1), nn.ReLU(), nn.Conv2d(16, 1, 3, padding=1), nn.Sigmoid())

    def forward(self, x):
        return self.dec(self.enc(x))


model = DAE()
opt = torch.optim.Adam(model.parameters(), lr=2e-3)


def loss_fn(model, noisy, clean):
    recon = model(noisy)
    s = ssim(recon, clean, data_range=1.0)
    return 0.8 * (1 - s) + 0.2 * (recon - clean).abs().mean(), s


compiled_loss = torch.compile(loss_fn, backend="aot_eager")

clean_all = torch.rand(64, 1, 32, 32).cumsum(-1).div(32).clamp(0, 1)
for step in range(30):
    clean = clean_all[(step * 8) % 64:(step * 8) % 64 + 8]
    noisy = (clean + 0.1 * torch.randn_like(clean)).clamp(0, 1)
    loss, s = compiled_loss(model, noisy, clean)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 9:
        print(f"step {step + 1}: loss {loss.item():.4f} ssim {s.item():.4f}")
