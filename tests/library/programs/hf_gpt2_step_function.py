"""A small GPT-2 whose training step is the user's own compiled function: the model is called by name inside it
(as benchmarks/ceiling_programs/gpt2_train.py writes it), not compiled itself, and no Trainer makes the call."""

import torch
from transformers import GPT2Config, GPT2LMHeadModel

torch.manual_seed(0)
config = GPT2Config(vocab_size=64, n_positions=64, n_embd=32, n_layer=1, n_head=2)
model = GPT2LMHeadModel(config)
opt = torch.optim.SGD(model.parameters(), lr=0.01)


@torch.compile(backend="aot_eager")
def train_step(ids):
    return model(input_ids=ids, labels=ids).loss  # EXPECT: transformers-loss-type-warning


for step in range(3):
    loss = train_step(torch.randint(0, 64, (2, 8)))
    loss.backward()
    opt.step()
    opt.zero_grad()
    print(f"{loss.item():.6f}")
