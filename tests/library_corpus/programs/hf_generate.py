"""transformers generate with a compiled forward (`model.forward = torch.compile(model.forward)`, transformers'
"torch.compile" guide), dynamic cache: the prompt's prefill, then one-token decode steps."""

import torch
from transformers import GPT2Config, GPT2LMHeadModel

torch.manual_seed(0)
model = GPT2LMHeadModel(GPT2Config(vocab_size=64, n_positions=64, n_embd=32, n_layer=2, n_head=2)).eval()
model.forward = torch.compile(model.forward, backend="aot_eager")
ids = torch.randint(0, 64, (1, 12))
with torch.no_grad():
    for _ in range(3):
        out = model.generate(ids, max_new_tokens=8, do_sample=False, pad_token_id=0)
print(out[0].tolist())
