"""Train an x-transformers decoder LM, evaluating every other step (model.eval() / model.train())."""

from dataclasses import dataclass

import torch
from x_transformers import Decoder, TransformerWrapper


@dataclass
class TrainConfig:
    vocab: int = 64
    dim: int = 32
    depth: int = 1
    heads: int = 2
    seq_len: int = 16
    steps: int = 4


cfg = TrainConfig()
torch.manual_seed(0)
model = TransformerWrapper(num_tokens=cfg.vocab, max_seq_len=cfg.seq_len,
                           attn_layers=Decoder(dim=cfg.dim, depth=cfg.depth, heads=cfg.heads, attn_dropout=0.1))
compiled = torch.compile(model, backend="aot_eager")
opt = torch.optim.SGD(model.parameters(), lr=0.01)


def lm_loss(tokens):
    logits = compiled(tokens[:, :-1])  # EXPECT: train/eval flips
    return torch.nn.functional.cross_entropy(logits.transpose(1, 2), tokens[:, 1:])


for step in range(cfg.steps):
    tokens = torch.randint(0, cfg.vocab, (2, cfg.seq_len))
    model.train()
    loss = lm_loss(tokens)
    loss.backward()
    opt.step()
    opt.zero_grad()
    model.eval()
    with torch.no_grad():
        val = lm_loss(tokens)
    print(f"step {step} train {loss.item():.3f} val {val.item():.3f}")
