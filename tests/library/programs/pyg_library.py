"""torch_geometric layers and helpers inside compiled code, sizes left for the library to infer."""

import torch
from torch_geometric.nn import GATConv, GCNConv, global_mean_pool
from torch_geometric.utils import degree, scatter, to_dense_adj, to_dense_batch

torch.manual_seed(0)
lin = torch.nn.Linear(4, 4)


@torch.compile(backend="aot_eager")
def readout(x, edge_index, batch):
    h = lin(x)
    deg = degree(edge_index[0])  # EXPECT: pyg-degree-num-nodes
    dense, _ = to_dense_batch(h, batch)  # EXPECT: pyg-to-dense-batch-sizes
    summed = scatter(h, batch, dim=0, reduce="sum")  # EXPECT: pyg-scatter-dim-size
    adj = to_dense_adj(edge_index, batch)  # EXPECT: pyg-to-dense-adj-sizes
    return deg.sum() + dense.sum() + summed.sum() + adj.sum()


class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.gcn = GCNConv(4, 4)
        self.gat = GATConv(4, 4, heads=2, concat=False)

    def forward(self, x, edge_index, batch):
        x = self.gcn(x, edge_index).relu()  # EXPECT: pyg-gcn-remaining-self-loops
        x = self.gat(x, edge_index)  # EXPECT: pyg-gat-remove-self-loops
        return global_mean_pool(x, batch)  # EXPECT: pyg-global-pool-size


net = torch.compile(Net(), backend="aot_eager")
batch = torch.tensor([0, 0, 0, 1, 1, 1])
edge_index = torch.tensor([[0, 1, 2, 3, 4, 5], [1, 2, 0, 4, 5, 3]])
for _ in range(2):
    x = torch.randn(6, 4)
    print(f"{readout(x, edge_index, batch).item():.6f} {net(x, edge_index, batch).sum().item():.6f}")
