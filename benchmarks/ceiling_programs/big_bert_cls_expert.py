"""BERT-base (12 layers, 12 heads, 768 wide, 3072 feed-forward, post-LayerNorm, GELU), written in plain torch from
nn.TransformerEncoderLayer as the "BERT from scratch" tutorials build it (token, position and segment embeddings, a
tanh pooler on [CLS]), fine-tuned for sequence classification the way Hugging Face's "Fine-tune a pretrained model"
custom-loop section does it: each batch padded to its longest example (DataCollatorWithPadding) with an attention
mask passed as src_key_padding_mask, AdamW at 2e-5 with a linear warmup/decay schedule (LambdaLR, as
get_linear_schedule_with_warmup), a train() function called per epoch that reads loss.item() every step, and an
evaluate() function under model.eval() and torch.no_grad() counting correct predictions with .item(); the model
compiled with `model = torch.compile(model)`. --small 1: a 2-layer, 64-wide encoder on short sequences.

The expert version: the hand fix (big_bert_cls_fixed.py) plus what pays on a GPU: each batch padded up to a multiple of
32 tokens (DataCollatorWithPadding's pad_to_multiple_of: four static shapes instead of a dynamic one; the padding is
masked, so the logits are the same), bf16 autocast, TF32, the forward and loss compiled whole (fullgraph=True,
dynamic=False) under mode="reduce-overhead" (CUDA graphs; `_timing.cuda_graphs`: only with Inductor on CUDA) with
torch.compiler.cudagraph_mark_step_begin() before each call, a separately compiled eval step, fused AdamW (the warmup
schedule unchanged), and the loss and correct counts summed on the device and read once per epoch (no host sync in the
step)."""

import random

import torch
import torch.nn as nn
from _timing import StepTimer, cuda_graphs, program_arguments
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


def collate(batch, bucket):
    """DataCollatorWithPadding(pad_to_multiple_of=bucket): pad to the longest example rounded up to a multiple of
    `bucket` (a few static shapes); attention_mask 1 on the real tokens, so the extra padding changes nothing."""
    longest = max(len(ids) for ids, _ in batch)
    longest = -(-longest // bucket) * bucket
    input_ids = torch.full((len(batch), longest), PAD, dtype=torch.long)
    attention_mask = torch.zeros((len(batch), longest), dtype=torch.long)
    for i, (ids, _) in enumerate(batch):
        input_ids[i, :len(ids)] = torch.tensor(ids)
        attention_mask[i, :len(ids)] = 1
    return {"input_ids": input_ids, "attention_mask": attention_mask,
            "labels": torch.tensor([label for _, label in batch])}


def main() -> None:
    args = program_arguments(epochs=3, steps=0, small=0)
    if args.small:
        vocab, hidden, layers, heads, inter = 1000, 64, 2, 2, 128
        batch_size, min_len, max_len, lr = 8, 8, 32, 1e-3
    else:
        vocab, hidden, layers, heads, inter = 30522, 768, 12, 12, 3072
        batch_size, min_len, max_len, lr = 32, 32, 128, 2e-5
    bucket = 8 if args.small else 32
    cuda = args.device.startswith("cuda")
    torch.backends.cuda.matmul.allow_tf32 = True
    torch.backends.cudnn.allow_tf32 = True

    steps = args.steps or (12 if args.small else 24)  # batches per epoch
    torch.manual_seed(0)
    rng = random.Random(0)
    train_set = make_examples(steps * batch_size, vocab, min_len, max_len, rng)
    val_set = make_examples(4 * batch_size, vocab, min_len, max_len, rng)
    train_loader = DataLoader(train_set, batch_size=batch_size, shuffle=True, collate_fn=lambda b: collate(b, bucket),
                              generator=torch.Generator().manual_seed(1), pin_memory=cuda)
    val_loader = DataLoader(val_set, batch_size=batch_size, collate_fn=lambda b: collate(b, bucket), pin_memory=cuda)

    model = BertClassifier(vocab, hidden, layers, heads, inter, 512, 2).to(args.device)
    optimizer = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01,
                                  **({"fused": True} if cuda else {"foreach": True}))
    total_steps = args.epochs * len(train_loader)
    warmup = total_steps // 10

    def lr_lambda(step):
        if step < warmup:
            return step / max(1, warmup)
        return max(0.0, (total_steps - step) / max(1, total_steps - warmup))

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)

    def forward_loss(input_ids, attention_mask, labels):
        with torch.autocast(device_type="cuda", dtype=torch.bfloat16, enabled=cuda):
            logits = model(input_ids, attention_mask)
            loss = nn.functional.cross_entropy(logits, labels)
        return loss, (logits.argmax(-1) == labels).sum()

    # static shapes (one graph per length bucket), CUDA graphs on a GPU; the eval step compiled on its own
    train_step = torch.compile(forward_loss, backend=args.backend, fullgraph=True, dynamic=False,
                               mode=cuda_graphs(args))
    eval_step = torch.compile(lambda *batch: forward_loss(*batch), backend=args.backend, fullgraph=True,
                              dynamic=False, mode=cuda_graphs(args))

    def on_device(batch):
        return [batch[k].to(args.device, non_blocking=True) for k in ("input_ids", "attention_mask", "labels")]

    timer = StepTimer(warmup=len(train_loader) + 2, device=args.device)
    for epoch in range(args.epochs):
        model.train()
        total = torch.zeros((), device=args.device)
        for batch in train_loader:
            timer.start()
            torch.compiler.cudagraph_mark_step_begin()
            loss, _ = train_step(*on_device(batch))
            total += loss.detach()
            loss.backward()
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad(set_to_none=True)
            timer.stop()
        model.eval()
        correct = torch.zeros((), dtype=torch.long, device=args.device)
        seen = 0
        with torch.no_grad():
            for batch in val_loader:
                torch.compiler.cudagraph_mark_step_begin()
                correct += eval_step(*on_device(batch))[1]
                seen += batch["labels"].size(0)
        print(f"epoch {epoch} train loss {total.item() / len(train_loader):.4f} "
              f"val accuracy {correct.item() / seen:.3f}")


if __name__ == "__main__":
    main()
