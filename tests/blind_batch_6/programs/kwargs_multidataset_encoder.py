"""A small BERT-style encoder trained on a mix of three datasets. Each dataset's collate function returns a dict
with the fields that dataset has (token_type_ids for sentence pairs, attention_mask only when the batch needed
padding), and the training loop calls `model(**batch)`, as Hugging Face-style code does; the model's forward takes
`input_ids, attention_mask=None, **kwargs` and looks the optional fields up in kwargs."""
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
VOCAB, DIM, MAXLEN, PAD = 200, 64, 32, 0


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, DIM, padding_idx=PAD)
        self.pos = nn.Embedding(MAXLEN, DIM)
        self.seg = nn.Embedding(2, DIM)
        layer = nn.TransformerEncoderLayer(DIM, 4, 128, dropout=0.0, batch_first=True)
        self.layers = nn.ModuleList([layer, nn.TransformerEncoderLayer(DIM, 4, 128, dropout=0.0, batch_first=True)])
        self.cls = nn.Linear(DIM, 3)

    def forward(self, input_ids, attention_mask=None, **kwargs):
        h = self.tok(input_ids) + self.pos(torch.arange(input_ids.size(1)))
        if kwargs.get("token_type_ids") is not None:
            h = h + self.seg(kwargs["token_type_ids"])
        pad_mask = None if attention_mask is None else attention_mask == 0
        for layer in self.layers:
            h = layer(h, src_key_padding_mask=pad_mask)
        if attention_mask is None:
            pooled = h.mean(1)
        else:
            m = attention_mask.unsqueeze(-1).float()
            pooled = (h * m).sum(1) / m.sum(1)
        logits = self.cls(pooled)
        if "labels" in kwargs:
            return F.cross_entropy(logits, kwargs["labels"]), logits
        return None, logits


def single_sentence_batch(n, length):  # fixed length: no padding, no mask
    ids = torch.randint(1, VOCAB, (n, length))
    return {"input_ids": ids, "labels": (ids[:, 0] % 3)}


def pair_batch(n, length):  # sentence pairs, segment ids, padded
    ids = torch.randint(1, VOCAB, (n, length))
    lens = torch.randint(length // 2, length + 1, (n,))
    mask = (torch.arange(length)[None] < lens[:, None]).long()
    ids = ids * mask
    seg = (torch.arange(length)[None] >= (lens[:, None] // 2)).long() * mask
    return {"input_ids": ids, "attention_mask": mask, "token_type_ids": seg, "labels": (ids[:, 1] % 3)}


def padded_batch(n, length):  # single sentences of varying length
    ids = torch.randint(1, VOCAB, (n, length))
    lens = torch.randint(4, length + 1, (n,))
    mask = (torch.arange(length)[None] < lens[:, None]).long()
    return {"input_ids": ids * mask, "attention_mask": mask, "labels": (ids[:, 0] % 3)}


def main():
    model = Encoder()
    compiled = torch.compile(model, backend="aot_eager")
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    makers = [single_sentence_batch, pair_batch, padded_batch]
    for step in range(36):
        batch = makers[step % 3](16, 24)
        loss, _ = compiled(**batch)
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 12 == 11:
            print(f"step {step + 1} loss {loss.item():.4f}")
    model.eval()
    with torch.no_grad():
        for maker in makers:
            batch = maker(32, 24)
            batch.pop("labels")
            _, logits = compiled(**batch)
            print(f"eval {maker.__name__}: mean max-prob {logits.softmax(-1).max(-1).values.mean().item():.4f}")


if __name__ == "__main__":
    main()
