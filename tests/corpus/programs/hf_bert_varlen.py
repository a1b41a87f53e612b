"""Fine-tune a small BERT classifier on batches of varying sequence length (random init, from a config)."""

import torch
from transformers import BertConfig, BertForSequenceClassification

torch.manual_seed(0)
config = BertConfig(vocab_size=100, hidden_size=32, num_hidden_layers=2, num_attention_heads=2,
                    intermediate_size=64, max_position_embeddings=64, num_labels=3)
model = BertForSequenceClassification(config)
model.train()
compiled = torch.compile(model, backend="aot_eager")
opt = torch.optim.SGD(model.parameters(), lr=0.01)

for step, seq_len in enumerate([16, 24, 32, 40]):
    ids = torch.randint(0, 100, (4, seq_len))
    labels = torch.randint(0, 3, (4,))
    out = compiled(input_ids=ids, labels=labels)  # EXPECT: sequence length changes
    out.loss.backward()
    opt.step()
    opt.zero_grad()
    print(f"step {step} loss {out.loss.item():.4f}")
