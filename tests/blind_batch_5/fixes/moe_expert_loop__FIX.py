"""FIX: dense dispatch: every expert runs on all tokens and a one-hot mask keeps its own (no nonzero, no data-dependent size).
A Switch-Transformer-style mixture-of-experts layer (top-1 routing), written the way many from-scratch MoE
implementations and tutorials write the dispatch: for each expert, find the tokens routed to it with
torch.nonzero, run the expert on those rows and scatter the result back. A small token classifier built on it is
compiled and trained, with the load-balancing auxiliary loss."""
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)


class SwitchMoE(nn.Module):
    def __init__(self, dim, hidden, num_experts):
        super().__init__()
        self.num_experts = num_experts
        self.router = nn.Linear(dim, num_experts)
        self.experts = nn.ModuleList(
            nn.Sequential(nn.Linear(dim, hidden), nn.GELU(), nn.Linear(hidden, dim)) for _ in range(num_experts))

    def forward(self, x):
        tokens = x.reshape(-1, x.shape[-1])
        probs = F.softmax(self.router(tokens), dim=-1)
        gate, expert_idx = probs.max(dim=-1)
        out = torch.zeros_like(tokens)
        for e in range(self.num_experts):
            mask = (expert_idx == e).unsqueeze(1).to(tokens.dtype)
            out = out + mask * (self.experts[e](tokens) * gate.unsqueeze(1))
        # load-balancing loss (Fedus et al.): fraction of tokens per expert times mean router probability
        frac = F.one_hot(expert_idx, self.num_experts).float().mean(0)
        aux = self.num_experts * (frac * probs.mean(0)).sum()
        return out.view_as(x), aux


class Tagger(nn.Module):
    def __init__(self, vocab=100, dim=32, num_tags=5, num_experts=4):
        super().__init__()
        self.emb = nn.Embedding(vocab, dim)
        self.norm = nn.LayerNorm(dim)
        self.moe = SwitchMoE(dim, 64, num_experts)
        self.out = nn.Linear(dim, num_tags)

    def forward(self, ids):
        h = self.emb(ids)
        m, aux = self.moe(self.norm(h))
        return self.out(h + m), aux


def main():
    model = Tagger()
    compiled = torch.compile(model, backend="aot_eager")
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    for step in range(80):
        ids = torch.randint(0, 100, (16, 24))
        tags = ids % 5
        logits, aux = compiled(ids)
        loss = F.cross_entropy(logits.reshape(-1, 5), tags.reshape(-1)) + 0.01 * aux
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 20 == 0 or step == 79:
            print(f"step {step:2d} loss {loss.item():.4f} aux {aux.item():.4f}")
    ids = torch.randint(0, 100, (64, 24))
    logits, _ = compiled(ids)
    acc = (logits.argmax(-1) == ids % 5).float().mean().item()
    print(f"tag accuracy {acc:.4f}")


if __name__ == "__main__":
    main()
