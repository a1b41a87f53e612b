"""A token-classification loss over the non-padding tokens, selected with the attention mask."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
head = nn.Linear(16, 5)


@torch.compile(backend="aot_eager")
def token_loss(hidden, labels, attention_mask):
    logits = head(hidden)
    active = attention_mask.bool()
    return F.cross_entropy(logits[active], labels[active])


for i in range(4):
    hidden = torch.randn(4, 8, 16)
    labels = torch.randint(0, 5, (4, 8))
    attention_mask = (torch.rand(4, 8) > 0.25).long()
    print(f"step {i} loss {token_loss(hidden, labels, attention_mask).item():.5f}")
