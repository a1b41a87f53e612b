import torch

torch._dynamo.config.recompile_limit = 2


@torch.compile(backend="eager")
def shift(x, mode):
    if mode == "double":
        return x * 2
    return x + len(mode)


for mode in ("a", "bb", "double", "cccc", "ddddd"):
    shift(torch.ones(2), mode)
print("done")
