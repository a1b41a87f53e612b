"""Sequences of random lengths padded per batch (pad_sequence) into a compiled per-token MLP, trained with the loss
and a for-loop optimizer (Adam, foreach=False, 82 small tensors) outside it.

Expected: the second length recompiles the model (torch's own trace gives the reason; Dynamo then makes the length
dynamic), an RCP finding at the call; the eager optimizer is a RUN001 finding that ranks after the recompile.
"""

import sys

import torch
import torch.nn.functional as F
from torch import nn
from torch.nn.utils.rnn import pad_sequence

torch.manual_seed(0)
model = nn.Sequential(*[nn.Linear(8, 8) for _ in range(40)], nn.Linear(8, 4))
compiled = torch.compile(model, backend="eager")
opt = torch.optim.Adam(model.parameters(), lr=1e-3, foreach=False)
lengths = torch.randint(4, 24, (64,)).tolist()
for step in range(int(sys.argv[1]) if len(sys.argv) > 1 else 14):
    seqs = [torch.randn(lengths[(step * 7 + i) % 64], 8) for i in range(4)]
    batch = pad_sequence(seqs, batch_first=True)  # (4, longest, 8)
    target = torch.randint(0, 4, batch.shape[:2])
    loss = F.cross_entropy(compiled(batch).flatten(0, 1), target.flatten())  # CALL
    loss.backward()
    opt.step()
    opt.zero_grad()
print(f"done {loss.item():.4f}")
