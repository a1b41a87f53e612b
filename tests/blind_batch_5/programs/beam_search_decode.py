"""Beam-search decoding for a small next-token model, written the way tutorials write beam search: each beam is a
(token tensor, score) pair kept in a Python list, candidates are extended with the top-k next tokens, sorted by
score and pruned. The whole decode function is decorated with @torch.compile to make generation faster."""
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
VOCAB, CONTEXT = 40, 4


class NGramLM(nn.Module):
    """Predicts the next token from the embeddings of the last CONTEXT tokens (a Bengio-style neural n-gram LM)."""

    def __init__(self, dim=32, hidden=128):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, dim)
        self.mlp = nn.Sequential(nn.Linear(CONTEXT * dim, hidden), nn.Tanh(), nn.Linear(hidden, VOCAB))

    def forward(self, context):  # context: (batch, CONTEXT)
        return self.mlp(self.emb(context).flatten(1))


def make_corpus(n):
    # sequences that count upward modulo VOCAB with an occasional skip: learnable structure
    seqs = []
    for _ in range(n):
        start = torch.randint(0, VOCAB, (1,)).item()
        steps = 1 + (torch.rand(20) < 0.2).long()
        seqs.append((start + torch.cumsum(steps, 0)) % VOCAB)
    return torch.stack(seqs)


@torch.compile(backend="eager")
def beam_search(model, prompt, beam_size=4, max_new_tokens=10):
    beams = [(prompt, 0.0)]
    for _ in range(max_new_tokens):
        candidates = []
        for tokens, score in beams:
            logits = model(tokens[-CONTEXT:].unsqueeze(0))[0]
            log_probs = F.log_softmax(logits, dim=-1)
            top_lp, top_ix = log_probs.topk(beam_size)
            for lp, ix in zip(top_lp, top_ix):
                candidates.append((torch.cat([tokens, ix.view(1)]), score + lp.item()))
        candidates.sort(key=lambda c: c[1], reverse=True)
        beams = candidates[:beam_size]
    return beams


def main():
    model = NGramLM()
    opt = torch.optim.Adam(model.parameters(), lr=1e-2)
    data = make_corpus(512)
    for epoch in range(3):
        for i in range(0, 512, 64):
            seq = data[i:i + 64]
            ctx = seq.unfold(1, CONTEXT, 1)[:, :-1].reshape(-1, CONTEXT)
            tgt = seq[:, CONTEXT:].reshape(-1)
            loss = F.cross_entropy(model(ctx), tgt)
            opt.zero_grad()
            loss.backward()
            opt.step()
        print(f"epoch {epoch} loss {loss.item():.4f}")
    model.eval()
    with torch.no_grad():
        for start in (3, 17, 30):
            prompt = torch.arange(start, start + CONTEXT) % VOCAB
            best_tokens, best_score = beam_search(model, prompt)[0]
            print(f"prompt {prompt.tolist()} -> {best_tokens[CONTEXT:].tolist()} score {best_score:.3f}")


if __name__ == "__main__":
    main()
