"""A small GAN on 2-D points, trained the way pix2pix/CycleGAN do it: the discriminator is
frozen with set_requires_grad(netD, False) while the generator is updated, and unfrozen for its
own update. Both networks are compiled."""
import torch
import torch.nn as nn

torch.manual_seed(0)


def set_requires_grad(nets, requires_grad=False):
    # from the pix2pix / CycleGAN BaseModel
    if not isinstance(nets, list):
        nets = [nets]
    for net in nets:
        if net is not None:
            for param in net.parameters():
                param.requires_grad = requires_grad


def real_batch(n):
    # points on a ring of radius 2
    theta = torch.rand(n) * 2 * torch.pi
    r = 2.0 + 0.1 * torch.randn(n)
    return torch.stack([r * torch.cos(theta), r * torch.sin(theta)], dim=1)


netG = nn.Sequential(nn.Linear(8, 64), nn.ReLU(), nn.Linear(64, 64), nn.ReLU(), nn.Linear(64, 2))
netD = nn.Sequential(nn.Linear(2, 64), nn.LeakyReLU(0.2), nn.Linear(64, 64), nn.LeakyReLU(0.2), nn.Linear(64, 1))
netG = torch.compile(netG, backend="aot_eager")
netD = torch.compile(netD, backend="aot_eager")

optG = torch.optim.Adam(netG.parameters(), lr=2e-4, betas=(0.5, 0.999))
optD = torch.optim.Adam(netD.parameters(), lr=2e-4, betas=(0.5, 0.999))
criterion = nn.BCEWithLogitsLoss()
batch = 128

for step in range(300):
    real = real_batch(batch)
    z = torch.randn(batch, 8)
    fake = netG(z)

    # --- update G: D frozen
    set_requires_grad(netD, False)
    optG.zero_grad()
    loss_G = criterion(netD(fake), torch.ones(batch, 1))
    loss_G.backward()
    optG.step()

    # --- update D
    set_requires_grad(netD, True)
    optD.zero_grad()
    loss_D_real = criterion(netD(real), torch.ones(batch, 1))
    loss_D_fake = criterion(netD(fake.detach()), torch.zeros(batch, 1))
    loss_D = 0.5 * (loss_D_real + loss_D_fake)
    loss_D.backward()
    optD.step()

    if step % 100 == 0 or step == 299:
        print(f"step {step:3d}  loss_D {loss_D.item():.4f}  loss_G {loss_G.item():.4f}")

with torch.no_grad():
    samples = netG(torch.randn(1000, 8))
print(f"mean radius of generated points: {samples.norm(dim=1).mean().item():.3f}")
