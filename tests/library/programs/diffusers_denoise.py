"""A tiny diffusers UNet sampled two ways: a Python-int timestep, and the scheduler step inside the compiled code."""

import torch
from diffusers import DDPMScheduler, UNet2DModel

torch.manual_seed(0)
unet = UNet2DModel(sample_size=8, in_channels=3, out_channels=3, layers_per_block=1, block_out_channels=(8, 16),
                   down_block_types=("DownBlock2D", "DownBlock2D"), up_block_types=("UpBlock2D", "UpBlock2D"),
                   norm_num_groups=4).eval()
# aot_eager fails on this UNet on CPU torch 2.13 (group_norm: "Expected X.is_contiguous"), eager runs
compiled = torch.compile(unet, backend="eager")
sched = DDPMScheduler(num_train_timesteps=10)
sched.set_timesteps(3)


@torch.compile(backend="eager")
def denoise(x, t):
    eps = unet(x, t).sample
    return sched.step(eps, t, x).prev_sample  # EXPECT: diffusers-scheduler-previous-timestep


sample = torch.randn(1, 3, 8, 8)
with torch.no_grad():
    for t in [9, 6, 3]:
        sample = sample - 0.1 * compiled(sample, t).sample  # EXPECT: diffusers-python-timestep
    for t in sched.timesteps:
        sample = denoise(sample, t)
print(f"{sample.sum().item():.4f}")
