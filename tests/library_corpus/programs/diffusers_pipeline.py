"""diffusers: a DDPMPipeline whose UNet is compiled (`pipe.unet = torch.compile(pipe.unet)`, diffusers' "Speed up
inference" guide), built from a config, sampled a few steps."""

import torch
from diffusers import DDPMPipeline, DDPMScheduler, UNet2DModel

torch.manual_seed(0)
unet = UNet2DModel(sample_size=8, in_channels=3, out_channels=3, block_out_channels=(8, 16), layers_per_block=1,
                   down_block_types=("DownBlock2D", "DownBlock2D"), up_block_types=("UpBlock2D", "UpBlock2D"),
                   norm_num_groups=4)
pipe = DDPMPipeline(unet=unet, scheduler=DDPMScheduler(num_train_timesteps=50))
pipe.set_progress_bar_config(disable=True)
# eager: aot_eager fails on this UNet on CPU torch 2.13 (group_norm: "Expected X.is_contiguous")
pipe.unet = torch.compile(pipe.unet, backend="eager")
images = pipe(batch_size=1, num_inference_steps=6, generator=torch.manual_seed(0), output_type="np").images
print(images.shape, f"{float(images.mean()):.4f}")
