"""The expert version: the hand-fixed program (gpt2_train_fixed.py) plus what torch's documentation gives for a small
step on a GPU: the compiled callable under mode="reduce-overhead" (CUDA graphs; `_timing.cuda_graphs`: only with
Inductor on CUDA), torch.compiler.cudagraph_mark_step_begin() before each step (the training-loop marker of the CUDA
Graph Trees docs), and the optimizer step compiled by the "torch.compile the optimizer" recipe
(`@torch.compile(fullgraph=False) def opt_step(): opt.step()`). Shapes vary over a few sizes only (marked dynamic as
in the hand fix), so CUDA graphs record once per size and then replay.

Hand-fixed: transformers GPT-2 (a tiny config, built from it: no download) trained with a growing sequence length
and a compiled step that prints its loss; hand-fixed: the loss printed after the call from the returned value, the
sequence length marked dynamic, transformers' loss_type set, the step compiled whole (fullgraph=True)."""

import torch
from _timing import StepTimer, cuda_graphs, program_arguments
from transformers import GPT2Config, GPT2LMHeadModel


def main() -> None:
    args = program_arguments(steps=24)

    torch.manual_seed(0)
    config = GPT2Config(n_layer=2, n_head=2, n_embd=64, vocab_size=256, n_positions=128)
    model = GPT2LMHeadModel(config).to(args.device)
    model.loss_type = "ForCausalLM"
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    @torch.compile(backend=args.backend, fullgraph=False)  # torch's compiled-optimizer recipe
    def opt_step():
        opt.step()

    def train_step(ids):
        return model(input_ids=ids, labels=ids).loss

    step = torch.compile(train_step, backend=args.backend, fullgraph=True, mode=cuda_graphs(args))
    timer = StepTimer(warmup=8, device=args.device)
    for i in range(args.steps):
        ids = torch.randint(0, 256, (4, 16 + 8 * (i % 4)), device=args.device)
        torch._dynamo.mark_dynamic(ids, 1)
        torch.compiler.cudagraph_mark_step_begin()
        timer.start()
        loss = step(ids)
        print(f"loss {loss.item():.4f}")
        loss.backward()
        opt_step()
        opt.zero_grad()
        timer.stop()


if __name__ == "__main__":
    main()
