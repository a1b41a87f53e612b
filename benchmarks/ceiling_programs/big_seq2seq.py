"""PyTorch's "Language Translation with nn.Transformer and torchtext" tutorial at its own sizes (3 encoder and 3 decoder
layers, 512 wide, 8 heads, 512 feed-forward, batch 128, ~10k-token vocabularies, sequence-first tensors), on a
synthetic Multi30k-sized corpus (sentences of 8-38 tokens whose "translation" is a token mapping of the reversed
source): Seq2SeqTransformer with TokenEmbedding and PositionalEncoding, create_mask() building the square subsequent
mask and both padding masks outside the model for every batch, teacher forcing (`tgt[:-1]` in, `tgt[1:]` as the
target), a collate_fn padding each batch with pad_sequence, train_epoch() and evaluate() called per epoch with
`losses += loss.item()` every batch, and greedy_decode() of a few sentences at the end; the model compiled with
`transformer = torch.compile(transformer)`. --small 1: 64-wide, one layer each side, batch 16."""

import math
import random

import torch
import torch.nn as nn
from _timing import StepTimer, program_arguments
from torch import Tensor
from torch.nn.utils.rnn import pad_sequence
from torch.utils.data import DataLoader

UNK_IDX, PAD_IDX, BOS_IDX, EOS_IDX = 0, 1, 2, 3


class PositionalEncoding(nn.Module):
    def __init__(self, emb_size: int, dropout: float, maxlen: int = 5000):
        super().__init__()
        den = torch.exp(- torch.arange(0, emb_size, 2) * math.log(10000) / emb_size)
        pos = torch.arange(0, maxlen).reshape(maxlen, 1)
        pos_embedding = torch.zeros((maxlen, emb_size))
        pos_embedding[:, 0::2] = torch.sin(pos * den)
        pos_embedding[:, 1::2] = torch.cos(pos * den)
        pos_embedding = pos_embedding.unsqueeze(-2)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("pos_embedding", pos_embedding)

    def forward(self, token_embedding: Tensor):
        return self.dropout(token_embedding + self.pos_embedding[:token_embedding.size(0), :])


class TokenEmbedding(nn.Module):
    def __init__(self, vocab_size: int, emb_size):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, emb_size)
        self.emb_size = emb_size

    def forward(self, tokens: Tensor):
        return self.embedding(tokens.long()) * math.sqrt(self.emb_size)


class Seq2SeqTransformer(nn.Module):
    def __init__(self, num_encoder_layers, num_decoder_layers, emb_size, nhead, src_vocab_size, tgt_vocab_size,
                 dim_feedforward=512, dropout=0.1):
        super().__init__()
        self.transformer = nn.Transformer(d_model=emb_size, nhead=nhead, num_encoder_layers=num_encoder_layers,
                                          num_decoder_layers=num_decoder_layers, dim_feedforward=dim_feedforward,
                                          dropout=dropout)
        self.generator = nn.Linear(emb_size, tgt_vocab_size)
        self.src_tok_emb = TokenEmbedding(src_vocab_size, emb_size)
        self.tgt_tok_emb = TokenEmbedding(tgt_vocab_size, emb_size)
        self.positional_encoding = PositionalEncoding(emb_size, dropout=dropout)

    def forward(self, src, trg, src_mask, tgt_mask, src_padding_mask, tgt_padding_mask, memory_key_padding_mask):
        src_emb = self.positional_encoding(self.src_tok_emb(src))
        tgt_emb = self.positional_encoding(self.tgt_tok_emb(trg))
        outs = self.transformer(src_emb, tgt_emb, src_mask, tgt_mask, None,
                                src_padding_mask, tgt_padding_mask, memory_key_padding_mask)
        return self.generator(outs)

    def encode(self, src: Tensor, src_mask: Tensor):
        return self.transformer.encoder(self.positional_encoding(self.src_tok_emb(src)), src_mask)

    def decode(self, tgt: Tensor, memory: Tensor, tgt_mask: Tensor):
        return self.transformer.decoder(self.positional_encoding(self.tgt_tok_emb(tgt)), memory, tgt_mask)


def generate_square_subsequent_mask(sz, device):
    mask = (torch.triu(torch.ones((sz, sz), device=device)) == 1).transpose(0, 1)
    return mask.float().masked_fill(mask == 0, float("-inf")).masked_fill(mask == 1, float(0.0))


def create_mask(src, tgt, device):
    src_seq_len = src.shape[0]
    tgt_seq_len = tgt.shape[0]
    tgt_mask = generate_square_subsequent_mask(tgt_seq_len, device)
    src_mask = torch.zeros((src_seq_len, src_seq_len), device=device).type(torch.bool)
    src_padding_mask = (src == PAD_IDX).transpose(0, 1)
    tgt_padding_mask = (tgt == PAD_IDX).transpose(0, 1)
    return src_mask, tgt_mask, src_padding_mask, tgt_padding_mask


def make_corpus(n, src_vocab, tgt_vocab, rng):
    """Source sentences of 8-38 tokens; the target is the reversed source mapped into the target vocabulary."""
    pairs = []
    for _ in range(n):
        src = [rng.randrange(4, src_vocab) for _ in range(rng.randint(8, 38))]
        pairs.append((src, [4 + (tok * 7) % (tgt_vocab - 4) for tok in reversed(src)]))
    return pairs


def collate_fn(batch):
    src_batch, tgt_batch = [], []
    for src_sample, tgt_sample in batch:
        src_batch.append(torch.tensor([BOS_IDX] + src_sample + [EOS_IDX]))
        tgt_batch.append(torch.tensor([BOS_IDX] + tgt_sample + [EOS_IDX]))
    return pad_sequence(src_batch, padding_value=PAD_IDX), pad_sequence(tgt_batch, padding_value=PAD_IDX)


def train_epoch(model, optimizer, loader, loss_fn, device, timer):
    model.train()
    losses = 0
    for src, tgt in loader:
        timer.start()
        src = src.to(device)
        tgt = tgt.to(device)
        tgt_input = tgt[:-1, :]
        src_mask, tgt_mask, src_padding_mask, tgt_padding_mask = create_mask(src, tgt_input, device)
        logits = model(src, tgt_input, src_mask, tgt_mask, src_padding_mask, tgt_padding_mask, src_padding_mask)
        optimizer.zero_grad()
        tgt_out = tgt[1:, :]
        loss = loss_fn(logits.reshape(-1, logits.shape[-1]), tgt_out.reshape(-1))
        loss.backward()
        optimizer.step()
        losses += loss.item()
        timer.stop()
    return losses / len(loader)


def evaluate(model, loader, loss_fn, device):
    model.eval()
    losses = 0
    for src, tgt in loader:
        src = src.to(device)
        tgt = tgt.to(device)
        tgt_input = tgt[:-1, :]
        src_mask, tgt_mask, src_padding_mask, tgt_padding_mask = create_mask(src, tgt_input, device)
        logits = model(src, tgt_input, src_mask, tgt_mask, src_padding_mask, tgt_padding_mask, src_padding_mask)
        tgt_out = tgt[1:, :]
        loss = loss_fn(logits.reshape(-1, logits.shape[-1]), tgt_out.reshape(-1))
        losses += loss.item()
    return losses / len(loader)


def greedy_decode(model, src, src_mask, max_len, start_symbol, device):
    src = src.to(device)
    src_mask = src_mask.to(device)
    memory = model.encode(src, src_mask)
    ys = torch.ones(1, 1).fill_(start_symbol).type(torch.long).to(device)
    for i in range(max_len - 1):
        memory = memory.to(device)
        tgt_mask = (generate_square_subsequent_mask(ys.size(0), device).type(torch.bool)).to(device)
        out = model.decode(ys, memory, tgt_mask)
        out = out.transpose(0, 1)
        prob = model.generator(out[:, -1])
        _, next_word = torch.max(prob, dim=1)
        next_word = next_word.item()
        ys = torch.cat([ys, torch.ones(1, 1).type_as(src.data).fill_(next_word)], dim=0)
        if next_word == EOS_IDX:
            break
    return ys


def main() -> None:
    args = program_arguments(epochs=3, steps=0, small=0)
    if args.small:
        src_vocab, tgt_vocab, emb, heads, ffn, layers = 500, 400, 64, 4, 128, 1
        batch_size, steps = 16, args.steps or 8
    else:
        src_vocab, tgt_vocab, emb, heads, ffn, layers = 19214, 10837, 512, 8, 512, 3
        batch_size, steps = 128, args.steps or 40
    device = args.device

    torch.manual_seed(0)
    rng = random.Random(0)
    train_data = make_corpus(steps * batch_size, src_vocab, tgt_vocab, rng)
    val_data = make_corpus(2 * batch_size, src_vocab, tgt_vocab, rng)
    train_loader = DataLoader(train_data, batch_size=batch_size, shuffle=True, collate_fn=collate_fn,
                              generator=torch.Generator().manual_seed(1))
    val_loader = DataLoader(val_data, batch_size=batch_size, collate_fn=collate_fn)

    transformer = Seq2SeqTransformer(layers, layers, emb, heads, src_vocab, tgt_vocab, ffn)
    for p in transformer.parameters():
        if p.dim() > 1:
            nn.init.xavier_uniform_(p)
    transformer = transformer.to(device)
    transformer = torch.compile(transformer, backend=args.backend)
    loss_fn = torch.nn.CrossEntropyLoss(ignore_index=PAD_IDX)
    optimizer = torch.optim.Adam(transformer.parameters(), lr=0.0001, betas=(0.9, 0.98), eps=1e-9)

    timer = StepTimer(warmup=steps + 2, device=device)
    for epoch in range(1, args.epochs + 1):
        train_loss = train_epoch(transformer, optimizer, train_loader, loss_fn, device, timer)
        val_loss = evaluate(transformer, val_loader, loss_fn, device)
        print(f"Epoch: {epoch}, Train loss: {train_loss:.3f}, Val loss: {val_loss:.3f}")

    transformer.eval()
    for src_tokens, _ in val_data[:2]:
        src = torch.tensor([BOS_IDX] + src_tokens + [EOS_IDX]).view(-1, 1)
        num_tokens = src.shape[0]
        src_mask = (torch.zeros(num_tokens, num_tokens)).type(torch.bool)
        tgt_tokens = greedy_decode(transformer, src, src_mask, max_len=num_tokens + 5, start_symbol=BOS_IDX,
                                   device=device).flatten()
        print("translation:", " ".join(str(t) for t in tgt_tokens.tolist()[1:8]), "...")


if __name__ == "__main__":
    main()
