"""diffusers: a UNet2DModel (a tiny config, built from it: no download) trained for noise prediction as diffusers'
train_unconditional example does (DDPMScheduler.add_noise, MSE on the noise), the training step compiled with
torch.compile (diffusers' guide compiles the UNet; here the step around it too). The loop draws one timestep per
batch as a Python int, and the step reads its loss with `.item()` for the log."""

import random

import torch
from _timing import StepTimer, program_arguments
from diffusers import DDPMScheduler, UNet2DModel


def main() -> None:
    args = program_arguments(steps=24)

    torch.manual_seed(0)
    random.seed(0)
    unet = UNet2DModel(sample_size=8, in_channels=3, out_channels=3, block_out_channels=(8, 16), layers_per_block=1,
                       down_block_types=("DownBlock2D", "DownBlock2D"), up_block_types=("UpBlock2D", "UpBlock2D"),
                       norm_num_groups=4).to(args.device)
    scheduler = DDPMScheduler(num_train_timesteps=1000)
    opt = torch.optim.AdamW(unet.parameters(), lr=1e-4)
    images = torch.randn(64, 3, 8, 8, device=args.device)

    @torch.compile(backend=args.backend)
    def train_step(clean, t):
        noise = torch.randn_like(clean)
        noisy = scheduler.add_noise(clean, noise, torch.tensor([t], device=clean.device))
        loss = torch.nn.functional.mse_loss(unet(noisy, t).sample, noise)
        return loss, loss.item()

    timer = StepTimer(warmup=8, device=args.device)
    for i in range(args.steps):
        clean = images[(i * 8) % 64:(i * 8) % 64 + 8]
        t = random.randint(0, 999)
        timer.start()
        loss, value = train_step(clean, t)
        loss.backward()
        opt.step()
        opt.zero_grad()
        timer.stop()
        if i % 4 == 0:
            print(f"step {i} t {t} loss {value:.4f}")


if __name__ == "__main__":
    main()
