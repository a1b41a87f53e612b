"""NOT_FIX: torch._dynamo.config.allow_rnn = True (the hint of the LSTM break), packing kept.
Intent classification of variable-length utterances with an LSTM, written as the PyTorch
tutorials and most RNN code do: pad the batch, pack it with pack_padded_sequence (so the LSTM skips the
padding), and classify from the last hidden state. The model is compiled and trained."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pack_padded_sequence

torch._dynamo.config.allow_rnn = True
torch.manual_seed(0)
VOCAB, EMB, HIDDEN, INTENTS, PAD = 200, 32, 64, 5, 0


class IntentClassifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(VOCAB, EMB, padding_idx=PAD)
        self.lstm = nn.LSTM(EMB, HIDDEN, batch_first=True)
        self.out = nn.Linear(HIDDEN, INTENTS)

    def forward(self, tokens, lengths):
        packed = pack_padded_sequence(self.embed(tokens), lengths, batch_first=True, enforce_sorted=False)
        _, (h_n, _) = self.lstm(packed)
        return self.out(h_n[-1])


def make_data(n=768, max_len=20):
    lengths = torch.randint(3, max_len + 1, (n,))
    tokens = torch.randint(1, VOCAB, (n, max_len))
    tokens[torch.arange(max_len)[None, :] >= lengths[:, None]] = PAD
    labels = (tokens[:, 0] + lengths) % INTENTS
    return tokens, lengths, labels


def main():
    tokens, lengths, labels = make_data()
    model = IntentClassifier()
    compiled = torch.compile(model, backend="aot_eager")
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    for epoch in range(5):
        total = 0.0
        for i in range(0, len(tokens), 64):
            logits = compiled(tokens[i:i + 64], lengths[i:i + 64])
            loss = F.cross_entropy(logits, labels[i:i + 64])
            opt.zero_grad()
            loss.backward()
            opt.step()
            total += loss.item()
        print(f"epoch {epoch}: loss {total / 12:.4f}")
    with torch.no_grad():
        acc = (compiled(tokens, lengths).argmax(1) == labels).float().mean().item()
    print(f"train accuracy {acc:.4f}")


if __name__ == "__main__":
    main()
