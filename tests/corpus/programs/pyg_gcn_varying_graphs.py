"""A two-layer GCN (torch_geometric) over a stream of random graphs with different node and edge counts."""

import torch
from torch_geometric.nn import GCNConv


class GCN(torch.nn.Module):
    def __init__(self, channels, classes):
        super().__init__()
        self.conv1 = GCNConv(channels, 16)
        self.conv2 = GCNConv(16, classes)

    def forward(self, x, edge_index):
        x = self.conv1(x, edge_index).relu()
        return self.conv2(x, edge_index)


torch.manual_seed(0)
model = GCN(8, 3)
compiled = torch.compile(model, backend="aot_eager")
for nodes, edges in [(10, 30), (14, 40), (20, 64)]:
    x = torch.randn(nodes, 8)
    edge_index = torch.randint(0, nodes, (2, edges))
    out = compiled(x, edge_index)  # EXPECT: node and edge counts change
print(tuple(out.shape))
