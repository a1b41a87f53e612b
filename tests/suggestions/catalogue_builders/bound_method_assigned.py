import torch


class Shift:
    def __init__(self, by):
        self.by = by

    def run(self, x):
        return x + self.by


@torch.compile(backend="eager")
def prepare(x):
    shifted = x.relu()
    return shifted, Shift(int(shifted.shape[0])).run


for _ in range(2):
    z, g = prepare(torch.tensor([-1.0, 2.0]))
print(g(z).tolist())
