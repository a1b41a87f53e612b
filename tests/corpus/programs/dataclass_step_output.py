"""A compiled evaluation step that returns a dataclass and reads its options from a dataclass config."""

from dataclasses import dataclass

import torch
from torch import nn


@dataclass
class EvalOptions:
    temperature: float = 1.0


@dataclass
class StepOutput:
    loss: torch.Tensor
    accuracy: float


torch.manual_seed(0)
model = nn.Sequential(nn.Linear(8, 16), nn.ReLU(), nn.Linear(16, 4)).eval()


@torch.compile(backend="aot_eager")
def evaluate(x, y, options):
    logits = model(x) / options.temperature
    loss = nn.functional.cross_entropy(logits, y)
    accuracy = (logits.argmax(-1) == y).float().mean().item()  # EXPECT: .item() for the accuracy
    return StepOutput(loss=loss, accuracy=accuracy)


with torch.no_grad():
    for temperature in [1.0, 0.5, 2.0]:
        out = evaluate(torch.randn(8, 8), torch.randint(0, 4, (8,)), EvalOptions(temperature))  # EXPECT: temperature
        print(f"T={temperature} loss {out.loss.item():.3f} acc {out.accuracy:.2f}")
