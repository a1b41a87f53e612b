"""A sentence-embedding wrapper around a small BertModel that branches on whether the batch has padding."""

import torch
from torch import nn
from transformers import BertConfig, BertModel


class SentenceEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        config = BertConfig(vocab_size=100, hidden_size=32, num_hidden_layers=1, num_attention_heads=2,
                            intermediate_size=64, max_position_embeddings=32)
        self.bert = BertModel(config)

    def forward(self, ids, mask):
        hidden = self.bert(input_ids=ids, attention_mask=mask).last_hidden_state
        if mask.sum() < mask.numel():  # EXPECT: branch on a tensor value
            weights = mask.unsqueeze(-1).float()
            return (hidden * weights).sum(1) / weights.sum(1)
        return hidden.mean(1)


torch.manual_seed(0)
encoder = torch.compile(SentenceEncoder().eval(), backend="aot_eager")
with torch.no_grad():
    for _ in range(2):
        ids = torch.randint(0, 100, (2, 12))
        mask = torch.ones(2, 12, dtype=torch.long)
        mask[1, 9:] = 0
        emb = encoder(ids, mask)
print(tuple(emb.shape))
