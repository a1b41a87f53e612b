"""Score a batch with a small GPT-2 in float32, then again after casting the model to bfloat16."""

import torch
from transformers import GPT2Config, GPT2LMHeadModel

torch.manual_seed(0)
model = GPT2LMHeadModel(GPT2Config(vocab_size=64, n_positions=32, n_embd=32, n_layer=1, n_head=2)).eval()
compiled = torch.compile(model, backend="aot_eager")
ids = torch.randint(0, 64, (2, 16))
with torch.no_grad():
    for dtype in [torch.float32, torch.bfloat16]:
        model.to(dtype)
        logits = compiled(ids).logits  # EXPECT: parameters change dtype
        print(dtype, float(logits.float().mean()))
