"""FIX: tokenize outside the compiled function; compile predict over the id tensor (its length becomes dynamic).
A bag-of-words text classifier served through a predict(text) function, as in the PyTorch text-classification
tutorial (EmbeddingBag + Linear) and the model-serving examples built on it: predict takes the raw string,
tokenizes it with str.lower/split and a vocabulary dict, and returns the label and its probability. The model is
trained on a toy corpus, then predict is decorated with @torch.compile to speed up serving."""
import random

import torch
import torch.nn.functional as F
from torch import nn

random.seed(0)
torch.manual_seed(0)

POS = "good great excellent lovely fine superb happy enjoyable wonderful nice".split()
NEG = "bad awful terrible poor boring sad horrible dull nasty weak".split()
FILL = "the movie film plot was a and it story acting very really quite so".split()
LABELS = ["negative", "positive"]
vocab = {w: i + 1 for i, w in enumerate(sorted(set(POS + NEG + FILL)))}  # 0 is <unk>


def make_sentence(label):
    words = random.choices(FILL, k=random.randint(3, 8)) + random.choices(POS if label else NEG, k=2)
    random.shuffle(words)
    return " ".join(words)


def tokenize(text):
    return [vocab.get(w, 0) for w in text.lower().split()]


class TextClassifier(nn.Module):
    def __init__(self, vocab_size, dim=32, num_class=2):
        super().__init__()
        self.embedding = nn.EmbeddingBag(vocab_size, dim, mode="mean")
        self.fc = nn.Linear(dim, num_class)

    def forward(self, text, offsets):
        return self.fc(self.embedding(text, offsets))


model = TextClassifier(len(vocab) + 1)


@torch.compile(backend="aot_eager")
def predict_ids(ids):
    probs = F.softmax(model(ids, torch.tensor([0])), dim=1)[0]
    return probs.argmax(), probs.max()


def main():
    opt = torch.optim.SGD(model.parameters(), lr=2.0)
    for step in range(150):
        labels = [random.randint(0, 1) for _ in range(16)]
        token_lists = [tokenize(make_sentence(l)) for l in labels]
        offsets = torch.tensor([0] + [len(t) for t in token_lists[:-1]]).cumsum(0)
        text = torch.tensor([i for t in token_lists for i in t])
        loss = F.cross_entropy(model(text, offsets), torch.tensor(labels))
        opt.zero_grad()
        loss.backward()
        opt.step()
    print(f"final training loss {loss.item():.4f}")

    model.eval()
    requests = [make_sentence(i % 2) for i in range(24)]
    correct = 0
    with torch.no_grad():
        for i, sentence in enumerate(requests):
            label, p = predict_ids(torch.tensor(tokenize(sentence), dtype=torch.long))
            correct += int(label.item() == i % 2)
            if i < 3:
                print(f"{sentence!r} -> {LABELS[label.item()]} ({p.item():.3f})")
    print(f"served {len(requests)} requests, accuracy {correct / len(requests):.3f}")


if __name__ == "__main__":
    main()
