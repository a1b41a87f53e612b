"""FIX: torch.manual_seed(BASE_SEED + step) moves out of the compiled corrupt() to its callers; corrupt() only draws.
Denoising autoencoder whose noisy inputs must be reproducible per step (so that a resumed run sees
the same corruption): the compiled corruption function reseeds torch with the step number and draws the
noise and the dropout mask, the way many training scripts make augmentation deterministic."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
BASE_SEED, NOISE_STD, MASK_P = 1000, 0.3, 0.2


@torch.compile(backend="aot_eager")
def corrupt(x):
    noise = torch.randn_like(x) * NOISE_STD
    keep = torch.rand_like(x) > MASK_P
    return (x + noise) * keep


class DAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.enc = nn.Sequential(nn.Linear(64, 128), nn.ReLU(), nn.Linear(128, 16))
        self.dec = nn.Sequential(nn.Linear(16, 128), nn.ReLU(), nn.Linear(128, 64))

    def forward(self, x):
        return self.dec(self.enc(x))


def main():
    data = torch.sin(torch.linspace(0, 6.28, 64)[None, :] * torch.randint(1, 5, (2048, 1)) +
                     torch.rand(2048, 1) * 6.28)
    model = DAE()
    compiled_model = torch.compile(model, backend="aot_eager")
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    step = 0
    for epoch in range(5):
        total = 0.0
        for i in range(0, len(data), 64):
            clean = data[i:i + 64]
            torch.manual_seed(BASE_SEED + step)
            loss = F.mse_loss(compiled_model(corrupt(clean)), clean)
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item()
            step += 1
        print(f"epoch {epoch}: denoising loss {total / 32:.4f}")
    with torch.no_grad():
        torch.manual_seed(BASE_SEED + 7)
        print(f"check corruption of step 7: {corrupt(data[:4]).sum().item():.4f}")


if __name__ == "__main__":
    main()
