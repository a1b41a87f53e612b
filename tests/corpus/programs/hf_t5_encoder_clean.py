"""Embed fixed-size batches with a small T5 encoder in eval mode: nothing for tdiag to flag."""

import torch
from transformers import T5Config, T5EncoderModel

torch.manual_seed(0)
config = T5Config(vocab_size=64, d_model=32, d_kv=8, d_ff=64, num_layers=2, num_heads=4)
encoder = T5EncoderModel(config).eval()
compiled = torch.compile(encoder, backend="aot_eager")

with torch.no_grad():
    for _ in range(3):
        ids = torch.randint(0, 64, (2, 12))
        hidden = compiled(input_ids=ids).last_hidden_state
print(tuple(hidden.shape))
