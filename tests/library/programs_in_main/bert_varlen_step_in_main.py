"""A BERT classifier fine-tuned through a compiled training step on batches whose sequence length changes: the
second call fails two guards at once, the length of `ids` and `model.config.problem_type is None` (transformers sets
it on the first call with labels). torch logs only the first failing guard, the size. At exit it prints torch's own
count of frame compiles (the oracle the test reads: 1 once nothing recompiles)."""

import torch
from torch._dynamo.utils import counters
from transformers import BertConfig, BertForSequenceClassification


def main():
    torch.manual_seed(0)
    config = BertConfig(num_hidden_layers=1, num_attention_heads=2, hidden_size=32, intermediate_size=64,
                        vocab_size=64, max_position_embeddings=32, num_labels=2)
    model = BertForSequenceClassification(config)

    def train_step(ids, labels):
        return model(input_ids=ids, labels=labels).loss

    step = torch.compile(train_step, backend="eager")
    for i in range(4):
        ids = torch.randint(0, 64, (4, 8 + 4 * (i % 2)))
        loss = step(ids, torch.randint(0, 2, (4,)))
    print(f"loss {loss.item():.4f}")
    print("frame compiles", counters["frames"]["total"])


main()
