"""Attention GRU decoder ported from an old seq2seq tutorial (Variable-wrapped initial state), compiled for
teacher-forced training."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.autograd import Variable

torch.manual_seed(0)
VOCAB, HIDDEN, SRC_LEN, TGT_LEN = 40, 48, 12, 10


class AttnDecoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, HIDDEN)
        self.cell = nn.GRUCell(2 * HIDDEN, HIDDEN)
        self.attn = nn.Linear(HIDDEN, HIDDEN, bias=False)
        self.out = nn.Linear(2 * HIDDEN, VOCAB)

    def init_hidden(self, batch_size):
        return Variable(torch.zeros(batch_size, HIDDEN))

    def forward(self, enc_out, tgt_in):
        h = self.init_hidden(enc_out.size(0))
        ctx = Variable(torch.zeros(enc_out.size(0), HIDDEN))
        logits = []
        for t in range(tgt_in.size(1)):
            h = self.cell(torch.cat([self.embed(tgt_in[:, t]), ctx], dim=-1), h)
            scores = torch.bmm(enc_out, self.attn(h).unsqueeze(2)).squeeze(2)
            ctx = torch.bmm(F.softmax(scores, dim=-1).unsqueeze(1), enc_out).squeeze(1)
            logits.append(self.out(torch.cat([h, ctx], dim=-1)))
        return torch.stack(logits, dim=1)


decoder = AttnDecoder()
compiled = torch.compile(decoder, backend="eager")
opt = torch.optim.Adam(decoder.parameters(), lr=3e-3)

for step in range(20):
    enc_out = torch.randn(16, SRC_LEN, HIDDEN)
    tgt = torch.randint(0, VOCAB, (16, TGT_LEN + 1))
    logits = compiled(enc_out, tgt[:, :-1])
    loss = F.cross_entropy(logits.reshape(-1, VOCAB), tgt[:, 1:].reshape(-1))
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 5 == 4:
        print(f"step {step + 1}: loss {loss.item():.4f}")
