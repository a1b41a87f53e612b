"""FIX: pad every batch to MAX_LEN and mask the padded steps, so the unrolled loop has one trip count.
Character-level RNN name classifier, after the PyTorch tutorial "NLP From Scratch: Classifying Names with a
Character-Level RNN": the RNN cell is stepped by hand over the characters of the name. Names are grouped into
batches of equal length (bucketing), so each batch is a (batch, length, letters) one-hot tensor."""
import random
import string

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
random.seed(0)
LETTERS = string.ascii_lowercase
N_LETTERS, HIDDEN = len(LETTERS), 64
MAX_LEN = 18  # longest name: 6 syllables of 3 letters

# four made-up "languages", each with its own favourite syllables
SYLLABLES = [["ko", "va", "ski", "ov", "ra"], ["ma", "ri", "no", "lli", "to"], ["sh", "er", "wo", "od", "ton"],
             ["ng", "uy", "en", "tr", "an"]]


def make_name(lang):
    return "".join(random.choice(SYLLABLES[lang]) for _ in range(random.randint(2, 6)))


def encode(names):
    x = torch.zeros(len(names), MAX_LEN, N_LETTERS)
    for i, name in enumerate(names):
        for t, ch in enumerate(name):
            x[i, t, LETTERS.index(ch)] = 1.0
    return x


class CharRNN(nn.Module):
    def __init__(self, n_categories=4):
        super().__init__()
        self.cell = nn.RNNCell(N_LETTERS, HIDDEN, nonlinearity="tanh")
        self.h2o = nn.Linear(HIDDEN, n_categories)

    def forward(self, line_tensor, lengths):
        hidden = torch.zeros(line_tensor.size(0), HIDDEN)
        for i in range(MAX_LEN):  # fixed trip count; padded steps keep the previous hidden state
            new_hidden = self.cell(line_tensor[:, i], hidden)
            hidden = torch.where((i < lengths)[:, None], new_hidden, hidden)
        return self.h2o(hidden)


def bucketed_batches(n_names, batch_size):
    names = [(make_name(lang), lang) for lang in (random.randrange(4) for _ in range(n_names))]
    by_len = {}
    for name, lang in names:
        by_len.setdefault(len(name), []).append((name, lang))
    batches = []
    for length, items in sorted(by_len.items()):
        for i in range(0, len(items), batch_size):
            chunk = items[i:i + batch_size]
            batches.append((encode([n for n, _ in chunk]), torch.tensor([l for _, l in chunk]),
                            torch.full((len(chunk),), length)))
    random.shuffle(batches)
    return batches


model = CharRNN()
compiled = torch.compile(model, backend="aot_eager")
opt = torch.optim.Adam(model.parameters(), lr=3e-3)
train = bucketed_batches(1500, 32)
for epoch in range(2):
    total = 0.0
    for x, y, lengths in train:
        loss = F.cross_entropy(compiled(x, lengths), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
    print(f"epoch {epoch}  batches {len(train)}  mean loss {total / len(train):.4f}")

test = bucketed_batches(400, 64)
correct = count = 0
with torch.no_grad():
    for x, y, lengths in test:
        correct += (compiled(x, lengths).argmax(1) == y).sum().item()
        count += y.numel()
print(f"test accuracy: {correct / count:.4f}")
