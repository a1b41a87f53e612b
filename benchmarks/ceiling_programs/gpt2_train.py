"""transformers GPT-2 (a tiny config, built from it: no download) trained with a growing sequence length and a
compiled step that prints its loss: `.item()` and print inside the compiled function, sequence-length recompiles,
and transformers' own loss_type warning."""

import torch
from _timing import StepTimer, program_arguments
from transformers import GPT2Config, GPT2LMHeadModel


def main() -> None:
    args = program_arguments(steps=24)

    torch.manual_seed(0)
    config = GPT2Config(n_layer=2, n_head=2, n_embd=64, vocab_size=256, n_positions=128)
    model = GPT2LMHeadModel(config).to(args.device)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)

    def train_step(ids):
        loss = model(input_ids=ids, labels=ids).loss
        val = loss.item()
        print(f"loss {val:.4f}")
        return loss

    step = torch.compile(train_step, backend=args.backend)
    timer = StepTimer(warmup=8, device=args.device)
    for i in range(args.steps):
        ids = torch.randint(0, 256, (4, 16 + 8 * (i % 4)), device=args.device)
        timer.start()
        loss = step(ids)
        loss.backward()
        opt.step()
        opt.zero_grad()
        timer.stop()


if __name__ == "__main__":
    main()
