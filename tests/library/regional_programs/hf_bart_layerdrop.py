"""A small Bart fine-tuned with LayerDrop, the regularisation its config offers (encoder_layerdrop,
decoder_layerdrop), written as transformers' docs show: build from a config, compile, train a few steps."""

import torch
from transformers import BartConfig, BartModel

torch.manual_seed(0)
config = BartConfig(vocab_size=100, d_model=32, encoder_layers=2, decoder_layers=2, encoder_attention_heads=2,
                    decoder_attention_heads=2, encoder_ffn_dim=64, decoder_ffn_dim=64, max_position_embeddings=32,
                    encoder_layerdrop=0.1, decoder_layerdrop=0.1)
model = BartModel(config)
compiled = torch.compile(model, backend="aot_eager")
optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
ids = torch.randint(0, 100, (2, 8))
model.train()
for _ in range(3):
    out = compiled(input_ids=ids, decoder_input_ids=ids)  # the layer loop around the compiled layers draws LayerDrop
    loss = out.last_hidden_state.pow(2).mean()
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()
print(f"loss {loss.item():.4f}")
