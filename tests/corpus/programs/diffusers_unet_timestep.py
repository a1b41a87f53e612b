"""A DDPM-style sampling loop over a tiny diffusers UNet2DModel, passing the timestep as a Python int."""

import torch
from diffusers import UNet2DModel

torch.manual_seed(0)
unet = UNet2DModel(sample_size=8, in_channels=3, out_channels=3, layers_per_block=1, block_out_channels=(8, 16),
                   down_block_types=("DownBlock2D", "DownBlock2D"), up_block_types=("UpBlock2D", "UpBlock2D"),
                   norm_num_groups=4).eval()
# aot_eager fails on this UNet on CPU torch 2.13 (group_norm: "Expected X.is_contiguous"), eager runs
compiled = torch.compile(unet, backend="eager")
sample = torch.randn(1, 3, 8, 8)
with torch.no_grad():
    for t in [999, 666, 333, 0]:
        noise = compiled(sample, t).sample  # EXPECT: the timestep is a Python int that changes every call
        sample = sample - 0.1 * noise
print(tuple(sample.shape))
