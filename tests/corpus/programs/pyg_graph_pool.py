"""Graph classification with torch_geometric: GraphConv layers and global_mean_pool over a batch vector."""

import torch
from torch_geometric.nn import GraphConv, global_mean_pool


class GraphClassifier(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = GraphConv(8, 16)
        self.head = torch.nn.Linear(16, 2)

    def forward(self, x, edge_index, batch):
        x = self.conv(x, edge_index).relu()
        x = global_mean_pool(x, batch)  # EXPECT: the pool reads the number of graphs from the batch vector
        return self.head(x)


torch.manual_seed(0)
model = torch.compile(GraphClassifier(), backend="aot_eager")
x = torch.randn(12, 8)
edge_index = torch.randint(0, 12, (2, 30))
batch = torch.tensor([0] * 6 + [1] * 6)
for _ in range(2):
    out = model(x, edge_index, batch)
print(tuple(out.shape))
