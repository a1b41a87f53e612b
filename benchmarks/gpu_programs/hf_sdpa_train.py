"""A transformers GPT-2 (random init, SDPA attention) trained for a few steps with torch.compile (Inductor) on CUDA."""

import torch
from transformers import GPT2Config, GPT2LMHeadModel

torch.manual_seed(0)
config = GPT2Config(n_layer=2, n_embd=256, n_head=4, vocab_size=1024, n_positions=128, bos_token_id=0, eos_token_id=0)
config._attn_implementation = "sdpa"  # transformers 4.x and 5.x alike (5.x dropped the model's keyword)
model = GPT2LMHeadModel(config).cuda()
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
compiled = torch.compile(model)

for _step in range(8):
    ids = torch.randint(0, config.vocab_size, (8, 128), device="cuda")
    with torch.autocast("cuda", dtype=torch.bfloat16):
        loss = compiled(input_ids=ids, labels=ids).loss
    loss.backward()
    opt.step()
    opt.zero_grad(set_to_none=True)
torch.cuda.synchronize()
print(f"final loss {loss.item():.3f}")
