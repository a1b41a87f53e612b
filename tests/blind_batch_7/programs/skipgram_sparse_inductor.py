"""word2vec skip-gram with negative sampling, as the classic PyTorch implementations write it: two
nn.Embedding(sparse=True) tables (centre and context words) trained with torch.optim.SparseAdam, so that only the
rows in the batch are touched. The whole model is compiled with the default backend."""
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
VOCAB, DIM, WINDOW, N_NEG = 2000, 48, 2, 5


class SkipGramNeg(nn.Module):
    def __init__(self):
        super().__init__()
        self.center = nn.Embedding(VOCAB, DIM, sparse=True)
        self.context = nn.Embedding(VOCAB, DIM, sparse=True)
        nn.init.uniform_(self.center.weight, -0.5 / DIM, 0.5 / DIM)
        nn.init.zeros_(self.context.weight)

    def forward(self, center, context, negatives):
        v = self.center(center)                                    # (B, D)
        u = self.context(context)                                  # (B, D)
        n = self.context(negatives)                                # (B, K, D)
        pos = F.logsigmoid((v * u).sum(-1))
        neg = F.logsigmoid(-torch.bmm(n, v.unsqueeze(-1)).squeeze(-1)).sum(-1)
        return -(pos + neg).mean()


def make_corpus(n_tokens):
    # a Zipf-ish token stream with some local structure: token t is often followed by t + 1
    base = torch.multinomial(1.0 / torch.arange(1, VOCAB + 1, dtype=torch.float), n_tokens, replacement=True)
    follow = torch.rand(n_tokens) < 0.3
    base[1:][follow[1:]] = (base[:-1][follow[1:]] + 1) % VOCAB
    return base


def main():
    corpus = make_corpus(20000)
    centers = torch.cat([corpus[WINDOW:-WINDOW]] * (2 * WINDOW))
    contexts = torch.cat([corpus[WINDOW + o:len(corpus) - WINDOW + o] for o in (-2, -1, 1, 2)])
    unigram = torch.bincount(corpus, minlength=VOCAB).float() ** 0.75
    model = SkipGramNeg()
    compiled = torch.compile(model)
    opt = torch.optim.SparseAdam(model.parameters(), lr=0.01)
    perm = torch.randperm(centers.numel())
    for step in range(40):
        idx = perm[step * 512:(step + 1) * 512]
        negatives = torch.multinomial(unigram, idx.numel() * N_NEG, replacement=True).view(-1, N_NEG)
        loss = compiled(centers[idx], contexts[idx], negatives)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 10 == 9:
            print(f"step {step + 1} loss {loss.item():.4f}")
    emb = F.normalize(model.center.weight.detach(), dim=-1)
    sims = emb[10] @ emb.T
    print("nearest to word 10:", sims.topk(4).indices.tolist())


if __name__ == "__main__":
    main()
