"""The expert version: the hand-fixed program (peft_train_fixed.py) plus what torch's documentation gives for a small
step on a GPU: the compiled callable under mode="reduce-overhead" (CUDA graphs; `_timing.cuda_graphs`: only with
Inductor on CUDA), torch.compiler.cudagraph_mark_step_begin() before each step (the training-loop marker of the CUDA
Graph Trees docs), and the optimizer step compiled by the "torch.compile the optimizer" recipe
(`@torch.compile(fullgraph=False) def opt_step(): opt.step()`). Shapes vary over a few sizes only (marked dynamic as
in the hand fix), so CUDA graphs record once per size and then replay.

Hand-fixed: peft: a LoRA adapter on a tiny GPT-2 (built from a config: no download), the peft model compiled whole
(`torch.compile(get_peft_model(...))`, as peft's torch.compile guide and quicktour show) and trained in the user's
own loop on batches padded to their longest sequence; hand-fixed: transformers' loss_type set on the base model (its
warning was the break that made Dynamo skip peft's whole forward), the sequence length marked dynamic, the peft
model compiled whole (fullgraph=True)."""

import torch
from _timing import StepTimer, cuda_graphs, program_arguments
from peft import LoraConfig, get_peft_model
from transformers import GPT2Config, GPT2LMHeadModel


def main() -> None:
    args = program_arguments(steps=24)

    torch.manual_seed(0)
    base = GPT2LMHeadModel(GPT2Config(n_layer=2, n_head=2, n_embd=64, vocab_size=256, n_positions=128))
    model = get_peft_model(base, LoraConfig(r=8, lora_alpha=16, target_modules=["c_attn"], fan_in_fan_out=True))
    model.to(args.device)
    base.loss_type = "ForCausalLM"
    compiled = torch.compile(model, backend=args.backend, fullgraph=True, mode=cuda_graphs(args))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    @torch.compile(backend=args.backend, fullgraph=False)  # torch's compiled-optimizer recipe
    def opt_step():
        opt.step()
    timer = StepTimer(warmup=8, device=args.device)
    for i in range(args.steps):
        ids = torch.randint(0, 256, (4, 16 + 8 * (i % 3)), device=args.device)
        torch._dynamo.mark_dynamic(ids, 1)
        torch.compiler.cudagraph_mark_step_begin()
        timer.start()
        out = compiled(input_ids=ids, labels=ids)
        out.loss.backward()
        opt_step()
        opt.zero_grad()
        timer.stop()
        if i % 4 == 0:
            print(f"step {i} loss {out.loss.item():.4f}")


if __name__ == "__main__":
    main()
