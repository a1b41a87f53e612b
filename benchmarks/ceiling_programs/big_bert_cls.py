"""BERT-base (12 layers, 12 heads, 768 wide, 3072 feed-forward, post-LayerNorm, GELU), written in plain torch from
nn.TransformerEncoderLayer as the "BERT from scratch" tutorials build it (token, position and segment embeddings, a
tanh pooler on [CLS]), fine-tuned for sequence classification the way Hugging Face's "Fine-tune a pretrained model"
custom-loop section does it: each batch padded to its longest example (DataCollatorWithPadding) with an attention
mask passed as src_key_padding_mask, AdamW at 2e-5 with a linear warmup/decay schedule (LambdaLR, as
get_linear_schedule_with_warmup), a train() function called per epoch that reads loss.item() every step, and an
evaluate() function under model.eval() and torch.no_grad() counting correct predictions with .item(); the model
compiled with `model = torch.compile(model)`. --small 1: a 2-layer, 64-wide encoder on short sequences."""

import random

import torch
import torch.nn as nn
from _timing import StepTimer, program_arguments
from torch.utils.data import DataLoader

CLS, SEP, PAD = 1, 2, 0


class BertClassifier(nn.Module):
    def __init__(self, vocab_size, hidden, layers, heads, intermediate, max_len, num_labels):
        super().__init__()
        self.word_embeddings = nn.Embedding(vocab_size, hidden, padding_idx=PAD)
        self.position_embeddings = nn.Embedding(max_len, hidden)
        self.token_type_embeddings = nn.Embedding(2, hidden)
        self.norm = nn.LayerNorm(hidden, eps=1e-12)
        self.dropout = nn.Dropout(0.1)
        layer = nn.TransformerEncoderLayer(hidden, heads, intermediate, dropout=0.1, activation="gelu",
                                           layer_norm_eps=1e-12, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers)
        self.pooler = nn.Linear(hidden, hidden)
        self.classifier = nn.Linear(hidden, num_labels)

    def forward(self, input_ids, attention_mask, token_type_ids=None):
        seq_len = input_ids.size(1)
        position_ids = torch.arange(seq_len, device=input_ids.device).unsqueeze(0)
        if token_type_ids is None:
            token_type_ids = torch.zeros_like(input_ids)
        x = self.word_embeddings(input_ids) + self.position_embeddings(position_ids)
        x = self.dropout(self.norm(x + self.token_type_embeddings(token_type_ids)))
        x = self.encoder(x, src_key_padding_mask=attention_mask == 0)
        pooled = torch.tanh(self.pooler(x[:, 0]))
        return self.classifier(self.dropout(pooled))


def make_examples(n, vocab, min_len, max_len, rng):
    """A "review" of random tokens; the label says whether the low half of the vocabulary is in the majority."""
    examples = []
    for _ in range(n):
        tokens = [rng.randrange(3, vocab) for _ in range(rng.randint(min_len, max_len - 2))]
        label = int(sum(t < vocab // 2 for t in tokens) * 2 > len(tokens))
        examples.append(([CLS] + tokens + [SEP], label))
    return examples


def collate(batch):
    """DataCollatorWithPadding: pad to the longest example of the batch, attention_mask 1 on the real tokens."""
    longest = max(len(ids) for ids, _ in batch)
    input_ids = torch.full((len(batch), longest), PAD, dtype=torch.long)
    attention_mask = torch.zeros((len(batch), longest), dtype=torch.long)
    for i, (ids, _) in enumerate(batch):
        input_ids[i, :len(ids)] = torch.tensor(ids)
        attention_mask[i, :len(ids)] = 1
    return {"input_ids": input_ids, "attention_mask": attention_mask,
            "labels": torch.tensor([label for _, label in batch])}


def train(model, loader, optimizer, scheduler, device, timer):
    model.train()
    total = 0.0
    for batch in loader:
        timer.start()
        batch = {k: v.to(device) for k, v in batch.items()}
        logits = model(batch["input_ids"], batch["attention_mask"])
        loss = nn.functional.cross_entropy(logits, batch["labels"])
        loss.backward()
        optimizer.step()
        scheduler.step()
        optimizer.zero_grad()
        total += loss.item()
        timer.stop()
    return total / len(loader)


def evaluate(model, loader, device):
    model.eval()
    correct = seen = 0
    with torch.no_grad():
        for batch in loader:
            batch = {k: v.to(device) for k, v in batch.items()}
            logits = model(batch["input_ids"], batch["attention_mask"])
            correct += (logits.argmax(-1) == batch["labels"]).sum().item()
            seen += batch["labels"].size(0)
    return correct / seen


def main() -> None:
    args = program_arguments(epochs=3, steps=0, small=0)
    if args.small:
        vocab, hidden, layers, heads, inter = 1000, 64, 2, 2, 128
        batch_size, min_len, max_len, lr = 8, 8, 32, 1e-3
    else:
        vocab, hidden, layers, heads, inter = 30522, 768, 12, 12, 3072
        batch_size, min_len, max_len, lr = 32, 32, 128, 2e-5

    steps = args.steps or (12 if args.small else 24)  # batches per epoch
    torch.manual_seed(0)
    rng = random.Random(0)
    train_set = make_examples(steps * batch_size, vocab, min_len, max_len, rng)
    val_set = make_examples(4 * batch_size, vocab, min_len, max_len, rng)
    train_loader = DataLoader(train_set, batch_size=batch_size, shuffle=True, collate_fn=collate,
                              generator=torch.Generator().manual_seed(1))
    val_loader = DataLoader(val_set, batch_size=batch_size, collate_fn=collate)

    model = BertClassifier(vocab, hidden, layers, heads, inter, 512, 2).to(args.device)
    model = torch.compile(model, backend=args.backend)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    total_steps = args.epochs * len(train_loader)
    warmup = total_steps // 10

    def lr_lambda(step):
        if step < warmup:
            return step / max(1, warmup)
        return max(0.0, (total_steps - step) / max(1, total_steps - warmup))

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)

    timer = StepTimer(warmup=len(train_loader) + 2, device=args.device)
    for epoch in range(args.epochs):
        loss = train(model, train_loader, optimizer, scheduler, args.device, timer)
        accuracy = evaluate(model, val_loader, args.device)
        print(f"epoch {epoch} train loss {loss:.4f} val accuracy {accuracy:.3f}")


if __name__ == "__main__":
    main()
