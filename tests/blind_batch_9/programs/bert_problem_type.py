"""Fine-tuning a tiny BertForSequenceClassification (random weights) with labels passed to the compiled model."""
import torch
from transformers import BertConfig, BertForSequenceClassification

torch.manual_seed(0)
config = BertConfig(vocab_size=200, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                    intermediate_size=64, max_position_embeddings=64, num_labels=3)
model = BertForSequenceClassification(config)
opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
cmodel = torch.compile(model, backend="eager")
ids = torch.randint(1, 200, (64, 24))
labels = ids[:, 0] % 3
for step in range(16):
    i = (step % 8) * 8
    out = cmodel(input_ids=ids[i:i + 8], attention_mask=torch.ones(8, 24, dtype=torch.long), labels=labels[i:i + 8])
    opt.zero_grad()
    out.loss.backward()
    opt.step()
    if step % 4 == 3:
        print(f"step {step + 1}: loss {out.loss.item():.4f}")
