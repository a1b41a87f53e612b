"""GPT-2 124M (12 layers, 12 heads, 768 wide, 50257-token vocabulary, tied embeddings), written in plain torch as
nanoGPT's model.py writes it (F.scaled_dot_product_attention with is_causal=True, `forward(idx, targets=None)`),
supervised fine-tuning on synthetic prompt/response pairs the way a plain-torch SFT loop does it: a collate_fn that
pads each batch to its longest example (labels -100 on the prompt and the padding), AdamW, a LambdaLR warmup then
linear decay, clip_grad_norm_ at 1.0, an epoch loop over a DataLoader, loss.item() and the returned gradient norm
read every step for the log, a validation perplexity under model.eval() and torch.no_grad() after each epoch; the
model compiled as nanoGPT's train.py does (`model = torch.compile(model)`). --small 1: a 2-layer, 64-wide model on
short sequences.

Hand-fixed after TORCH_LOGS=graph_breaks,recompiles: the padded sequence length marked dynamic
(`torch._dynamo.mark_dynamic(ids, 1)`, the labels too), so a batch of a new length no longer recompiles; the one
recompile left is the validation loop's torch.no_grad() (grad_mode), the second graph an eval loop needs."""

import math
import random

import torch
import torch.nn as nn
from _timing import StepTimer, program_arguments
from torch.nn import functional as F
from torch.utils.data import DataLoader

PAD = -100


class CausalSelfAttention(nn.Module):
    def __init__(self, n_embd, n_head):
        super().__init__()
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)
        self.c_proj = nn.Linear(n_embd, n_embd)
        self.n_head, self.n_embd = n_head, n_embd

    def forward(self, x):
        B, T, C = x.size()
        q, k, v = self.c_attn(x).split(self.n_embd, dim=2)
        k = k.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        q = q.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        v = v.view(B, T, self.n_head, C // self.n_head).transpose(1, 2)
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.c_proj(y.transpose(1, 2).contiguous().view(B, T, C))


class Block(nn.Module):
    def __init__(self, n_embd, n_head):
        super().__init__()
        self.ln_1 = nn.LayerNorm(n_embd)
        self.attn = CausalSelfAttention(n_embd, n_head)
        self.ln_2 = nn.LayerNorm(n_embd)
        self.mlp = nn.Sequential(nn.Linear(n_embd, 4 * n_embd), nn.GELU(approximate="tanh"),
                                 nn.Linear(4 * n_embd, n_embd))

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT(nn.Module):
    def __init__(self, vocab_size, block_size, n_layer, n_head, n_embd):
        super().__init__()
        self.block_size = block_size
        self.wte = nn.Embedding(vocab_size, n_embd)
        self.wpe = nn.Embedding(block_size, n_embd)
        self.h = nn.ModuleList([Block(n_embd, n_head) for _ in range(n_layer)])
        self.ln_f = nn.LayerNorm(n_embd)
        self.lm_head = nn.Linear(n_embd, vocab_size, bias=False)
        self.wte.weight = self.lm_head.weight  # weight tying
        self.apply(self._init_weights)

    def _init_weights(self, module):
        if isinstance(module, nn.Linear):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)
            if module.bias is not None:
                nn.init.zeros_(module.bias)
        elif isinstance(module, nn.Embedding):
            nn.init.normal_(module.weight, mean=0.0, std=0.02)

    def forward(self, idx, targets=None):
        b, t = idx.size()
        assert t <= self.block_size, f"Cannot forward sequence of length {t}, block size is only {self.block_size}"
        pos = torch.arange(0, t, dtype=torch.long, device=idx.device)
        x = self.wte(idx) + self.wpe(pos)
        for block in self.h:
            x = block(x)
        x = self.ln_f(x)
        if targets is not None:
            logits = self.lm_head(x)
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), targets.view(-1), ignore_index=PAD)
        else:
            logits = self.lm_head(x[:, [-1], :])
            loss = None
        return logits, loss


def make_examples(n, vocab, min_len, max_len, rng):
    """A prompt and its response: the prompt's tokens shifted by one (learnable), of random lengths."""
    examples = []
    for _ in range(n):
        length = rng.randint(min_len, max_len - 1) // 2
        prompt = [rng.randrange(1, vocab - 1) for _ in range(length)]
        examples.append((prompt, [tok + 1 for tok in prompt]))
    return examples


def collate(batch, eos):
    """Pad to the longest example of the batch; the loss sees the response only."""
    longest = max(len(p) + len(r) + 1 for p, r in batch)
    ids = torch.full((len(batch), longest), eos, dtype=torch.long)
    labels = torch.full((len(batch), longest), PAD, dtype=torch.long)
    for i, (prompt, response) in enumerate(batch):
        seq = prompt + response + [eos]
        ids[i, :len(seq)] = torch.tensor(seq)
        labels[i, len(prompt) - 1:len(seq) - 1] = torch.tensor(response + [eos])
    return ids, labels


def main() -> None:
    args = program_arguments(epochs=2, steps=0, small=0)
    if args.small:
        vocab, block, n_layer, n_head, n_embd, batch_size, min_len, max_len = 512, 64, 2, 2, 64, 4, 16, 64
    else:
        vocab, block, n_layer, n_head, n_embd, batch_size, min_len, max_len = 50257, 1024, 12, 12, 768, 8, 128, 512

    steps = args.steps or (16 if args.small else 24)  # batches per epoch
    torch.manual_seed(0)
    rng = random.Random(0)
    train = make_examples(steps * batch_size, vocab, min_len, max_len, rng)
    val = make_examples(2 * batch_size, vocab, min_len, max_len, rng)
    eos = vocab - 1
    train_loader = DataLoader(train, batch_size=batch_size, shuffle=True, collate_fn=lambda b: collate(b, eos),
                              generator=torch.Generator().manual_seed(1))
    val_loader = DataLoader(val, batch_size=batch_size, collate_fn=lambda b: collate(b, eos))

    model = GPT(vocab, block, n_layer, n_head, n_embd).to(args.device)
    model = torch.compile(model, backend=args.backend)
    optimizer = torch.optim.AdamW(model.parameters(), lr=5e-5 if not args.small else 1e-3, weight_decay=0.01)
    total = args.epochs * len(train_loader)
    warmup = total // 10

    def lr_lambda(step):
        if step < warmup:
            return (step + 1) / warmup
        return max(0.0, (total - step) / max(1, total - warmup))

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, lr_lambda)

    timer = StepTimer(warmup=len(train_loader) + 2, device=args.device)
    for epoch in range(args.epochs):
        model.train()
        running, norms = 0.0, 0.0
        for step, (ids, labels) in enumerate(train_loader):
            timer.start()
            ids, labels = ids.to(args.device), labels.to(args.device)
            torch._dynamo.mark_dynamic(ids, 1)
            torch._dynamo.mark_dynamic(labels, 1)
            logits, loss = model(ids, labels)
            loss.backward()
            grad_norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
            optimizer.step()
            scheduler.step()
            optimizer.zero_grad(set_to_none=True)
            running += loss.item()
            norms += grad_norm.item()
            timer.stop()
        model.eval()
        val_loss = 0.0
        with torch.no_grad():
            for ids, labels in val_loader:
                ids, labels = ids.to(args.device), labels.to(args.device)
                torch._dynamo.mark_dynamic(ids, 1)
                torch._dynamo.mark_dynamic(labels, 1)
                _, loss = model(ids, labels)
                val_loss += loss.item()
        val_loss /= len(val_loader)
        print(f"epoch {epoch} train loss {running / len(train_loader):.4f} grad norm {norms / len(train_loader):.3f} "
              f"val loss {val_loss:.4f} ppl {math.exp(val_loss):.1f}")


if __name__ == "__main__":
    main()
