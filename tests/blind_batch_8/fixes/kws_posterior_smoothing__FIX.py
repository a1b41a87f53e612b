"""FIX: forward drops the oldest posterior itself (popleft when the deque is full) before append.
Streaming keyword spotting: a small frame classifier runs on one feature frame at a time (with a tensor
of the previous frames as context), and its posteriors are smoothed over the last SMOOTH frames (the
posterior-handling step of Chen et al. 2014), kept in a collections.deque(maxlen=SMOOTH) on the compiled
streaming module."""
import collections

import torch
import torch.nn as nn

torch.manual_seed(0)
FEATS, CONTEXT, KEYWORDS, SMOOTH, THRESH = 40, 8, 3, 5, 0.3


class StreamingKWS(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(FEATS * CONTEXT, 128), nn.ReLU(), nn.Linear(128, KEYWORDS + 1))
        self.register_buffer("context", torch.zeros(CONTEXT, FEATS))
        self.history = collections.deque(maxlen=SMOOTH)

    def reset(self):
        self.context.zero_()
        self.history.clear()

    def forward(self, frame):
        self.context.copy_(torch.cat([self.context[1:], frame[None]]))
        posterior = self.net(self.context.flatten()).softmax(-1)
        if len(self.history) == SMOOTH:
            self.history.popleft()
        self.history.append(posterior)
        smoothed = torch.stack(list(self.history)).mean(0)
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
