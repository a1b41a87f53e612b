"""FIX_tensor_history: the last SMOOTH posteriors live in a tensor buffer (shifted with torch.cat) with a count buffer; no deque.
Streaming keyword spotting: a small frame classifier runs on one feature frame at a time (with a tensor
of the previous frames as context), and its posteriors are smoothed over the last SMOOTH frames (the
posterior-handling step of Chen et al. 2014), kept in a collections.deque(maxlen=SMOOTH) on the compiled
streaming module."""
import torch
import torch.nn as nn

torch.manual_seed(0)
FEATS, CONTEXT, KEYWORDS, SMOOTH, THRESH = 40, 8, 3, 5, 0.3


class StreamingKWS(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(FEATS * CONTEXT, 128), nn.ReLU(), nn.Linear(128, KEYWORDS + 1))
        self.register_buffer("context", torch.zeros(CONTEXT, FEATS))
        self.register_buffer("history", torch.zeros(SMOOTH, KEYWORDS + 1))
        self.register_buffer("count", torch.zeros(()))

    def reset(self):
        self.context.zero_()
        self.history.zero_()
        self.count.zero_()

    def forward(self, frame):
        self.context.copy_(torch.cat([self.context[1:], frame[None]]))
        posterior = self.net(self.context.flatten()).softmax(-1)
        self.history.copy_(torch.cat([self.history[1:], posterior[None]]))
        self.count.add_(1)
        smoothed = self.history.sum(0) / self.count.clamp(max=SMOOTH)
        return smoothed[1:].max()


def main():
    model = StreamingKWS().eval()
    stream_step = torch.compile(model, backend="aot_eager")
    proto = torch.randn(KEYWORDS, FEATS)
    detections, peak_sum = [], 0.0
    with torch.no_grad():
        for utt in range(30):
            model.reset()
            kw = utt % KEYWORDS
            frames = 0.8 * torch.randn(300, FEATS)
            frames[120:160] += 3.0 * proto[kw]
            peaks = [float(stream_step(f)) for f in frames]
            peak_sum += sum(peaks)
            detections.append(sum(p > THRESH for p in peaks))
    print(f"frames above threshold per utterance: {detections}")
    print(f"sum of smoothed keyword scores: {peak_sum:.4f}")


if __name__ == "__main__":
    main()
