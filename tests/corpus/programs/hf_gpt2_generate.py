"""A hand-written greedy decoding loop around a small GPT-2 (the shape of HF generate, without the KV cache)."""

import torch
from transformers import GPT2Config, GPT2LMHeadModel

torch.manual_seed(0)
config = GPT2Config(vocab_size=64, n_positions=64, n_embd=32, n_layer=2, n_head=2)
model = GPT2LMHeadModel(config).eval()


@torch.compile(backend="aot_eager")
def next_token(input_ids):
    logits = model(input_ids).logits
    token = logits[:, -1].argmax(-1, keepdim=True)
    if token.item() == config.eos_token_id:  # EXPECT: .item() inside the compiled step
        return None
    return token


ids = torch.randint(0, 64, (1, 8))
with torch.no_grad():
    for _ in range(4):
        token = next_token(ids)  # EXPECT: the prompt grows every step
        if token is None:
            break
        ids = torch.cat([ids, token], dim=1)
print(ids.shape[1])
