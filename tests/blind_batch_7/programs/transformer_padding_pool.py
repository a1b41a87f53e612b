"""Sentence embeddings from an nn.TransformerEncoder over padded batches: tokens are embedded, padding is passed as
src_key_padding_mask, and the sentence vector is the sum over positions divided by the true length (the padded
positions come out as zeros in the eager evaluation run). The encoder is compiled for the evaluation."""
import torch
from torch import nn

torch.manual_seed(0)
VOCAB, D_MODEL, PAD = 1000, 64, 0


class SentenceEncoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, D_MODEL, padding_idx=PAD)
        layer = nn.TransformerEncoderLayer(D_MODEL, nhead=4, dim_feedforward=128, dropout=0.1, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=2)

    def forward(self, tokens):
        pad_mask = tokens == PAD
        h = self.encoder(self.embed(tokens), src_key_padding_mask=pad_mask)
        lengths = (~pad_mask).sum(1, keepdim=True)
        return h.sum(1) / lengths


def make_batch(n, max_len):
    lengths = torch.randint(3, max_len + 1, (n,))
    tokens = torch.randint(1, VOCAB, (n, max_len))
    tokens[torch.arange(max_len)[None, :] >= lengths[:, None]] = PAD
    return tokens


def main():
    model = SentenceEncoder().eval()
    compiled = torch.compile(model, backend="aot_eager")
    queries, docs = make_batch(8, 16), make_batch(32, 16)
    with torch.no_grad():
        q = nn.functional.normalize(compiled(queries), dim=-1)
        d = nn.functional.normalize(compiled(docs), dim=-1)
    scores = q @ d.T
    best = scores.argmax(1)
    print("best doc per query", best.tolist())
    print("top score per query", [round(v, 4) for v in scores.max(1).values.tolist()])
    print(f"mean embedding norm before normalize {compiled(docs).norm(dim=-1).mean().item():.4f}")


if __name__ == "__main__":
    main()
