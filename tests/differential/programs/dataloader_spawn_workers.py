"""A compiled model fed by a DataLoader with spawned workers whose dataset itself runs a compiled transform."""

# differential: kind=script
import torch
from torch.utils.data import DataLoader, Dataset


@torch.compile(backend="eager")
def augment(x):
    return x * 2 + 1


class Data(Dataset):
    def __len__(self):
        return 16

    def __getitem__(self, i):
        g = torch.Generator().manual_seed(i)
        return augment(torch.randn(8, generator=g)), torch.tensor([float(i % 2)])


if __name__ == "__main__":
    torch.manual_seed(0)
    loader = DataLoader(Data(), batch_size=4, num_workers=2, multiprocessing_context="spawn")
    model = torch.compile(torch.nn.Linear(8, 1), backend="aot_eager")
    total = 0.0
    for x, y in loader:
        total += torch.nn.functional.mse_loss(model(x), y).item()
    print(round(total, 4))
