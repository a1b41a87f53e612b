"""One data-dependent branch in a small function, called with a few batch sizes.

An expert sees two problems: the branch on a tensor value (# BRANCH) and the changing batch size at the call
(# CALL). Nothing else: the function is tiny by nature, so its pieces are not "tiny graphs" worth a finding.
"""
import torch


def scale(x):
    if x.sum() > 0:  # BRANCH
        return x * 2
    return x - 1


step = torch.compile(scale, backend="eager")
for batch in (4, 8, 16):
    print(batch, step(torch.ones(batch, 3)).shape)  # CALL
