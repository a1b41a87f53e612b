"""A small GPT-2 trained on sequences that grow each step, called with keyword arguments (as a Trainer does)."""

import torch
from transformers import GPT2Config, GPT2LMHeadModel

torch.manual_seed(0)
config = GPT2Config(vocab_size=64, n_positions=64, n_embd=32, n_layer=1, n_head=2)
model = GPT2LMHeadModel(config)
opt = torch.optim.SGD(model.parameters(), lr=0.01)
cmodel = torch.compile(model, backend="aot_eager")

for step in range(3):
    ids = torch.randint(0, 64, (2, 8 + 4 * step))
    out = cmodel(input_ids=ids, labels=ids)  # EXPECT: transformers-loss-type-warning
    out.loss.backward()
    opt.step()
    opt.zero_grad()
    print(f"{out.loss.item():.6f}")
