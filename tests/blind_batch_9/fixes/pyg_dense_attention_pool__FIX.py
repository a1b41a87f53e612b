"""FIX CHECK: to_dense_batch gets batch_size= and max_num_nodes= (no int(tensor) inside PyG)."""
"""Graph classifier: GraphSAGE layers, then multi-head attention over each graph's nodes via to_dense_batch."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch_geometric.nn import SAGEConv
from torch_geometric.utils import to_dense_batch
from torch_geometric.data import Data, Batch

torch.manual_seed(0)
MAX_NODES = 15
GRAPHS_PER_BATCH = 16


class GraphAttnClassifier(nn.Module):
    def __init__(self, in_dim=8, hidden=32, classes=3):
        super().__init__()
        self.conv1 = SAGEConv(in_dim, hidden)
        self.conv2 = SAGEConv(hidden, hidden)
        self.attn = nn.MultiheadAttention(hidden, 4, batch_first=True)
        self.head = nn.Linear(hidden, classes)

    def forward(self, x, edge_index, batch):
        h = F.relu(self.conv1(x, edge_index))
        h = F.relu(self.conv2(h, edge_index))
        dense, mask = to_dense_batch(h, batch, batch_size=GRAPHS_PER_BATCH, max_num_nodes=MAX_NODES)
        out, _ = self.attn(dense, dense, dense, key_padding_mask=~mask)
        pooled = (out * mask.unsqueeze(-1)).sum(1) / mask.sum(1, keepdim=True)
        return self.head(pooled)


def random_graph(g):
    n = int(torch.randint(6, MAX_NODES + 1, (1,)))
    edge_index = torch.randint(0, n, (2, 3 * n))
    return Data(x=torch.randn(n, 8), edge_index=edge_index, y=torch.tensor([g % 3]))


graphs = [random_graph(g) for g in range(96)]
model = GraphAttnClassifier()
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
cmodel = torch.compile(model, backend="aot_eager")

for epoch in range(3):
    total = 0.0
    for i in range(0, len(graphs), GRAPHS_PER_BATCH):
        batch = Batch.from_data_list(graphs[i:i + GRAPHS_PER_BATCH])
        logits = cmodel(batch.x, batch.edge_index, batch.batch)
        loss = F.cross_entropy(logits, batch.y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        total += loss.item()
    print(f"epoch {epoch}: mean loss {total / 6:.4f}")
