"""A three-layer GCN (torch_geometric) over a list of `Data` graphs of different sizes, the layers in a ModuleList,
the model compiled as PyG's "Compiled Graph Neural Networks" guide shows. GCNConv adds the missing self-loops on
every call (a boolean mask: a graph break in each layer), and the sizes change from graph to graph."""

import torch
from torch_geometric.data import Data
from torch_geometric.nn import GCNConv


class Net(torch.nn.Module):
    def __init__(self, sizes):
        super().__init__()
        self.convs = torch.nn.ModuleList(GCNConv(a, b) for a, b in zip(sizes[:-1], sizes[1:]))

    def forward(self, x, edge_index):
        for conv in self.convs[:-1]:
            x = conv(x, edge_index).relu()
        return self.convs[-1](x, edge_index)


def main():
    torch.manual_seed(0)
    graphs = [Data(x=torch.randn(n, 16), edge_index=torch.randint(0, n, (2, 4 * n))) for n in (30, 40, 50)]
    model = torch.compile(Net([16, 32, 32, 3]))
    for step in range(6):
        data = graphs[step % 3]
        out = model(data.x, data.edge_index)
        print(f"graph {step % 3}: {out.shape[0]} nodes, sum {out.sum().item():.4f}")


if __name__ == "__main__":
    main()
