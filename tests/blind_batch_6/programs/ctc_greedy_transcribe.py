"""A tiny speech-recognition pipeline: a 1-D conv acoustic model trained with CTC on synthetic "audio" features,
and torchaudio's tutorial GreedyCTCDecoder (argmax, torch.unique_consecutive, drop blanks, join the labels) put in
one Transcriber module with the acoustic model. The Transcriber is compiled for inference."""
import torch
import torch.nn.functional as F
from torch import nn

torch.manual_seed(0)
LABELS = "-abcdefgh"  # index 0 is the CTC blank
N_FEAT, FRAMES_PER_CHAR = 16, 4


class AcousticModel(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Sequential(nn.Conv1d(N_FEAT, 64, 5, padding=2), nn.ReLU(), nn.Conv1d(64, 64, 5, padding=2),
                                  nn.ReLU(), nn.Conv1d(64, len(LABELS), 1))

    def forward(self, feats):  # (batch, N_FEAT, time) -> (batch, time, labels)
        return self.conv(feats).transpose(1, 2).log_softmax(-1)


class GreedyCTCDecoder(torch.nn.Module):
    def __init__(self, labels, blank=0):
        super().__init__()
        self.labels = labels
        self.blank = blank

    def forward(self, emission: torch.Tensor) -> str:
        indices = torch.argmax(emission, dim=-1)  # [num_seq,]
        indices = torch.unique_consecutive(indices, dim=-1)
        indices = [i for i in indices if i != self.blank]
        return "".join([self.labels[i] for i in indices])


class Transcriber(nn.Module):
    def __init__(self, model, decoder):
        super().__init__()
        self.model, self.decoder = model, decoder

    def forward(self, feats):  # one utterance: (N_FEAT, time)
        emission = self.model(feats.unsqueeze(0))[0]
        return self.decoder(emission)


PROTOS = torch.randn(len(LABELS), N_FEAT) * 2


def synth(n_chars):
    """Features for a random string: each char is FRAMES_PER_CHAR noisy frames of its prototype, then a silence."""
    chars = torch.randint(1, len(LABELS), (n_chars,))
    frames = []
    for c in chars.tolist():
        frames += [PROTOS[c]] * FRAMES_PER_CHAR + [PROTOS[0]]
    x = torch.stack(frames, 1) + 0.5 * torch.randn(N_FEAT, len(frames))
    return x, chars


def main():
    model = AcousticModel()
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    for step in range(100):
        utts = [synth(6) for _ in range(16)]
        feats = torch.stack([u[0] for u in utts])
        targets = torch.stack([u[1] for u in utts])
        log_probs = model(feats).transpose(0, 1)  # (time, batch, labels) for ctc_loss
        loss = F.ctc_loss(log_probs, targets, torch.full((16,), feats.size(-1)), torch.full((16,), 6))
        opt.zero_grad()
        loss.backward()
        opt.step()
        if step % 50 == 49:
            print(f"step {step + 1} ctc loss {loss.item():.4f}")
    model.eval()
    transcribe = torch.compile(Transcriber(model, GreedyCTCDecoder(LABELS)), backend="eager")
    correct = 0
    with torch.no_grad():
        for i in range(40):
            feats, chars = synth(4 + i % 5)
            text = transcribe(feats)
            ref = "".join(LABELS[c] for c in chars.tolist())
            correct += text == ref
            if i < 3:
                print(f"ref {ref!r} hyp {text!r}")
    print(f"exact transcripts: {correct}/40")


if __name__ == "__main__":
    main()
