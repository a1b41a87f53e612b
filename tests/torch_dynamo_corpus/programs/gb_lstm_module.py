# Source: graph-break registry entry GB0014 "Attempted to wrap RNN, GRU, or LSTM"
# (torch/_dynamo/graph_break_registry.json; test/dynamo/test_repros.py RNN tests). Torch skips the frame holding
# the LSTM call unless torch._dynamo.config.allow_rnn = True. Exact torch test name not verified.
import torch


class Tagger(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = torch.nn.Embedding(20, 8)
        self.lstm = torch.nn.LSTM(8, 16, batch_first=True)
        self.head = torch.nn.Linear(16, 3)

    def forward(self, tokens):
        h, _ = self.lstm(self.emb(tokens))
        return self.head(h[:, -1])


torch.manual_seed(0)
model = torch.compile(Tagger(), backend="eager")
tokens = torch.randint(0, 20, (2, 5))
with torch.no_grad():
    for _ in range(3):
        logits = model(tokens)
print("logits:", [[round(v, 4) for v in row] for row in logits.tolist()])
