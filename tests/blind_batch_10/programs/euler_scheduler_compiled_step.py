"""Sampling with a diffusers UNet2DModel and EulerDiscreteScheduler; the whole denoising step is compiled."""
import torch
from diffusers import EulerDiscreteScheduler, UNet2DModel

torch.manual_seed(0)
unet = UNet2DModel(
    sample_size=16, in_channels=3, out_channels=3, layers_per_block=1,
    block_out_channels=(16, 32), down_block_types=("DownBlock2D", "DownBlock2D"),
    up_block_types=("UpBlock2D", "UpBlock2D"), norm_num_groups=8,
).eval()
scheduler = EulerDiscreteScheduler(num_train_timesteps=1000, beta_schedule="scaled_linear")
scheduler.set_timesteps(12)


@torch.compile(backend="eager")
def denoise_step(sample, t):
    model_input = scheduler.scale_model_input(sample, t)
    noise_pred = unet(model_input, t).sample
    return scheduler.step(noise_pred, t, sample).prev_sample


generator = torch.Generator().manual_seed(42)
latents = torch.randn(2, 3, 16, 16, generator=generator) * scheduler.init_noise_sigma
with torch.no_grad():
    for t in scheduler.timesteps:
        latents = denoise_step(latents, t)
print(f"steps {len(scheduler.timesteps)}")
print(f"sample mean {latents.mean().item():.4f} std {latents.std().item():.4f}")
