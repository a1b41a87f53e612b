"""A compiled torch.nn.Sequential (with a forward hook, so torch wraps the call) fed three batch sizes.

Every frame Dynamo compiles here lives in torch's own files; the one line the user owns is the call (# CALL).
"""
import torch

model = torch.nn.Sequential(torch.nn.Linear(8, 8), torch.nn.GELU(), torch.nn.LayerNorm(8))
model.register_forward_hook(lambda module, args, out: None)
compiled = torch.compile(model, backend="eager")
for batch in (2, 3, 4):
    y = compiled(torch.randn(batch, 8))  # CALL
print(tuple(y.shape))
