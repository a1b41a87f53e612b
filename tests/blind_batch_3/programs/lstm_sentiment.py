"""A text classifier in the style of the classic PyTorch sentiment tutorials: Embedding -> LSTM ->
Linear on the last hidden state, trained with Adam. The model is compiled."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
VOCAB, SEQ, N = 200, 24, 2048
POS_WORDS, NEG_WORDS = torch.arange(10, 20), torch.arange(20, 30)


def make_dataset(n):
    tokens = torch.randint(30, VOCAB, (n, SEQ))
    labels = torch.randint(0, 2, (n,))
    # plant 3 sentiment words per review
    pos = torch.randint(0, SEQ, (n, 3))
    words = torch.where(labels[:, None] == 1, POS_WORDS[torch.randint(0, 10, (n, 3))], NEG_WORDS[torch.randint(0, 10, (n, 3))])
    tokens.scatter_(1, pos, words)
    return tokens, labels


class LSTMClassifier(nn.Module):
    def __init__(self, vocab_size, embed_dim=32, hidden_dim=64, num_classes=2):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_dim)
        self.lstm = nn.LSTM(embed_dim, hidden_dim, batch_first=True)
        self.fc = nn.Linear(hidden_dim, num_classes)

    def forward(self, text):
        embedded = self.embedding(text)
        output, (hidden, cell) = self.lstm(embedded)
        return self.fc(hidden[-1])


train_x, train_y = make_dataset(N)
test_x, test_y = make_dataset(512)
model = LSTMClassifier(VOCAB)
model = torch.compile(model, backend="aot_eager")
optimizer = torch.optim.Adam(model.parameters(), lr=5e-3)

for epoch in range(3):
    model.train()
    perm = torch.randperm(N)
    total = 0.0
    for i in range(0, N, 64):
        idx = perm[i:i + 64]
        logits = model(train_x[idx])
        loss = F.cross_entropy(logits, train_y[idx])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        total += loss.item()
    model.eval()
    with torch.no_grad():
        acc = (model(test_x).argmax(1) == test_y).float().mean().item()
    print(f"epoch {epoch}  train loss {total / (N // 64):.4f}  test acc {acc:.4f}")
