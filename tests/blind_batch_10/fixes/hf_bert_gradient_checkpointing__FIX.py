"""FIX: use_cache=False in the config (an encoder never uses the cache), so transformers no longer warns from inside the compiled forward."""
"""Fine-tuning a small BertForSequenceClassification with gradient checkpointing turned on to save memory,
model compiled."""
import torch
from transformers import BertConfig, BertForSequenceClassification

torch.manual_seed(0)
config = BertConfig(
    vocab_size=500, hidden_size=64, num_hidden_layers=4, num_attention_heads=4, intermediate_size=128,
    max_position_embeddings=64, num_labels=2, problem_type="single_label_classification",
    use_cache=False,
)
model = BertForSequenceClassification(config)
model.gradient_checkpointing_enable(gradient_checkpointing_kwargs={"use_reentrant": False})
model.train()
compiled = torch.compile(model, backend="aot_eager")
opt = torch.optim.AdamW(model.parameters(), lr=5e-4)

for step in range(12):
    g = torch.Generator().manual_seed(step)
    input_ids = torch.randint(1, 500, (8, 32), generator=g)
    labels = (input_ids[:, 0] > 250).long()
    out = compiled(input_ids=input_ids, attention_mask=torch.ones_like(input_ids), labels=labels)
    opt.zero_grad()
    out.loss.backward()
    opt.step()
    if step % 4 == 3:
        print(f"step {step + 1}: loss {out.loss.item():.4f}")
