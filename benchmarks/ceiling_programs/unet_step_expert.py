"""The expert version: the hand-fixed program (unet_step_fixed.py) plus what torch's documentation gives for a small
step on a GPU: the compiled callable under mode="reduce-overhead" (CUDA graphs; `_timing.cuda_graphs`: only with
Inductor on CUDA), torch.compiler.cudagraph_mark_step_begin() before each step (the training-loop marker of the CUDA
Graph Trees docs), and the optimizer step compiled by the "torch.compile the optimizer" recipe
(`@torch.compile(fullgraph=False) def opt_step(): opt.step()`). Shapes vary over a few sizes only (marked dynamic as
in the hand fix), so CUDA graphs record once per size and then replay.

Hand-fixed: diffusers: a UNet2DModel (a tiny config, built from it: no download) trained for noise prediction as
diffusers' train_unconditional example does (DDPMScheduler.add_noise, MSE on the noise), the training step compiled
with torch.compile; hand-fixed: the timestep passed as a tensor (a Python int is a constant to Dynamo: a new value
compiles again), the loss read after the call from the returned tensor, the step compiled whole (fullgraph=True)."""

import random

import torch
from _timing import StepTimer, cuda_graphs, program_arguments
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
    @torch.compile(backend=args.backend, fullgraph=False)  # torch's compiled-optimizer recipe
    def opt_step():
        opt.step()
    images = torch.randn(64, 3, 8, 8, device=args.device)

    @torch.compile(backend=args.backend, fullgraph=True, mode=cuda_graphs(args))
    def train_step(clean, t):
        noise = torch.randn_like(clean)
        noisy = scheduler.add_noise(clean, noise, t)
        return torch.nn.functional.mse_loss(unet(noisy, t).sample, noise)

    timer = StepTimer(warmup=8, device=args.device)
    for i in range(args.steps):
        clean = images[(i * 8) % 64:(i * 8) % 64 + 8]
        t = random.randint(0, 999)
        torch.compiler.cudagraph_mark_step_begin()
        timer.start()
        loss = train_step(clean, torch.tensor([t], device=args.device))
        loss.backward()
        opt_step()
        opt.zero_grad()
        timer.stop()
        if i % 4 == 0:
            print(f"step {i} t {t} loss {loss.item():.4f}")


if __name__ == "__main__":
    main()
