"""NOT_FIX: torch.use_deterministic_algorithms(True).
Masked-autoencoder pretraining (after facebookresearch/mae's models_mae.py) on synthetic 1-D "images" cut into
patches: per-sample random masking with `noise = torch.rand(N, L)`, argsort shuffle / restore, an MLP encoder on
the visible patches, mask tokens, and an MSE loss on the masked patches only. The model is compiled with the default
backend (Inductor) to speed up pretraining."""
import torch
from torch import nn
torch.use_deterministic_algorithms(True)

torch.manual_seed(0)
L, P, D = 16, 8, 64  # patches per sample, values per patch, width
MASK_RATIO = 0.75


class TinyMAE(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Linear(P, D)
        self.pos = nn.Parameter(torch.randn(1, L, D) * 0.02)
        self.encoder = nn.Sequential(nn.Linear(D, D), nn.GELU(), nn.Linear(D, D))
        self.mask_token = nn.Parameter(torch.zeros(1, 1, D))
        self.decoder = nn.Sequential(nn.Linear(D, D), nn.GELU(), nn.Linear(D, P))

    def random_masking(self, x, mask_ratio):
        N, L_, Dm = x.shape
        len_keep = int(L_ * (1 - mask_ratio))
        noise = torch.rand(N, L_, device=x.device)  # noise in [0, 1]
        ids_shuffle = torch.argsort(noise, dim=1)  # ascend: small is keep, large is remove
        ids_restore = torch.argsort(ids_shuffle, dim=1)
        ids_keep = ids_shuffle[:, :len_keep]
        x_masked = torch.gather(x, dim=1, index=ids_keep.unsqueeze(-1).repeat(1, 1, Dm))
        mask = torch.ones([N, L_], device=x.device)
        mask[:, :len_keep] = 0
        mask = torch.gather(mask, dim=1, index=ids_restore)
        return x_masked, mask, ids_restore

    def forward(self, patches):
        x = self.embed(patches) + self.pos
        x, mask, ids_restore = self.random_masking(x, MASK_RATIO)
        x = self.encoder(x)
        tokens = self.mask_token.repeat(x.shape[0], ids_restore.shape[1] - x.shape[1], 1)
        x_ = torch.cat([x, tokens], dim=1)
        x_ = torch.gather(x_, dim=1, index=ids_restore.unsqueeze(-1).repeat(1, 1, x.shape[2]))
        pred = self.decoder(x_ + self.pos)
        loss = ((pred - patches) ** 2).mean(dim=-1)
        return (loss * mask).sum() / mask.sum(), mask


def make_signals(n):
    t = torch.linspace(0, 1, L * P)
    freq, phase = torch.rand(n, 1) * 4 + 1, torch.rand(n, 1) * 6.28
    return torch.sin(6.28 * freq * t + phase).view(n, L, P)


def main():
    data = make_signals(1024)
    model = TinyMAE()
    compiled = torch.compile(model)
    opt = torch.optim.AdamW(model.parameters(), lr=2e-3)
    for epoch in range(3):
        for i in range(0, 1024, 128):
            loss, mask = compiled(data[i:i + 128])
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(f"epoch {epoch} loss {loss.item():.4f} first mask {mask[0].int().tolist()}")
    print(f"decoder weight checksum {model.decoder[2].weight.sum().item():.6f}")


if __name__ == "__main__":
    main()
