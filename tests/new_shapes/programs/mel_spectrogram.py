"""A log-mel front end as torchaudio.transforms.MelSpectrogram computes it (power spectrogram from torch.stft, a mel
filter bank, log), then a small classifier, compiled. torchaudio has no build for this torch (its newest needs
torch 2.11), so the transform is written with what torch ships: torch.stft and a triangular filter bank."""

import math

import torch

torch.manual_seed(0)
SAMPLE_RATE, N_FFT, HOP, N_MELS = 8000, 256, 128, 16


def mel_filterbank():
    def hz_to_mel(f):
        return 2595.0 * math.log10(1.0 + f / 700.0)

    mels = torch.linspace(hz_to_mel(0.0), hz_to_mel(SAMPLE_RATE / 2), N_MELS + 2)
    hz = 700.0 * (10 ** (mels / 2595.0) - 1.0)
    freqs = torch.linspace(0, SAMPLE_RATE / 2, N_FFT // 2 + 1)
    lower, center, upper = hz[:-2, None], hz[1:-1, None], hz[2:, None]
    return torch.clamp(torch.minimum((freqs - lower) / (center - lower), (upper - freqs) / (upper - center)), min=0)


class AudioClassifier(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("window", torch.hann_window(N_FFT))
        self.register_buffer("fbank", mel_filterbank())
        self.head = torch.nn.Linear(N_MELS, 4)

    def forward(self, wave):
        spec = torch.stft(wave, N_FFT, HOP, window=self.window, return_complex=True).abs().pow(2)
        mel = torch.log(self.fbank @ spec + 1e-6)
        return self.head(mel.mean(dim=-1))


model = torch.compile(AudioClassifier(), backend="aot_eager")
with torch.no_grad():
    for _ in range(3):
        logits = model(torch.randn(2, SAMPLE_RATE))
print(f"logits {logits.sum().item():.4f}")
