"""FIX: only the acoustic model is compiled; F.ctc_loss (no meta kernel for its data-dependent output) runs eagerly."""
"""Small CTC acoustic model (conv + GRU) trained on synthetic utterances; the loss function is compiled."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
N_MELS, N_TOKENS = 20, 12  # token 0 is the CTC blank


class AcousticModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(N_MELS, 48, kernel_size=5, padding=2)
        self.proj = nn.Linear(48, 48)
        self.out = nn.Linear(48, N_TOKENS)

    def forward(self, feats):  # feats: (B, N_MELS, T)
        h = F.gelu(self.conv(feats)).transpose(1, 2)
        return self.out(F.gelu(self.proj(h)))  # (B, T, N_TOKENS)


model = AcousticModel()
opt = torch.optim.AdamW(model.parameters(), lr=2e-3)


compiled_model = torch.compile(model, backend="aot_eager")


def ctc_step(feats, targets, input_lengths, target_lengths):
    log_probs = compiled_model(feats).log_softmax(-1).transpose(0, 1)  # (T, B, C)
    return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, zero_infinity=True)


def make_batch(step, batch=8, frames=60):
    g = torch.Generator().manual_seed(step)
    feats = torch.randn(batch, N_MELS, frames, generator=g)
    target_lengths = torch.randint(4, 12, (batch,), generator=g)
    input_lengths = torch.full((batch,), frames, dtype=torch.long) - torch.randint(0, 10, (batch,), generator=g)
    targets = torch.randint(1, N_TOKENS, (int(target_lengths.sum()),), generator=g)
    return feats, targets, input_lengths, target_lengths


for step in range(30):
    feats, targets, in_len, tgt_len = make_batch(step)
    loss = ctc_step(feats, targets, in_len, tgt_len)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step % 10 == 9:
        print(f"step {step + 1}: ctc {loss.item():.4f}")
