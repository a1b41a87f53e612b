"""FIX: torch's hint, torch._dynamo.config.capture_dynamic_output_shape_ops = True, added after the imports (dropout_edge's boolean-mask indexing traced with an unbacked edge count)."""
"""GraphSAGE node classification with DropEdge regularisation (torch_geometric.utils.dropout_edge in forward),
model compiled."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch_geometric.nn import SAGEConv
from torch_geometric.utils import dropout_edge

torch._dynamo.config.capture_dynamic_output_shape_ops = True
torch.manual_seed(0)
N, E, F_IN, C = 400, 2400, 16, 4


class SAGEDropEdge(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = SAGEConv(F_IN, 32)
        self.conv2 = SAGEConv(32, C)

    def forward(self, x, edge_index):
        edge_index, _ = dropout_edge(edge_index, p=0.3, training=self.training)
        h = F.relu(self.conv1(x, edge_index))
        return self.conv2(h, edge_index)


x = torch.randn(N, F_IN)
y = (x[:, :C] + 0.5 * torch.randn(N, C)).argmax(1)
edge_index = torch.randint(0, N, (2, E))
train_mask = torch.rand(N) < 0.7

model = SAGEDropEdge()
compiled = torch.compile(model, backend="aot_eager")
opt = torch.optim.Adam(model.parameters(), lr=1e-2)
for epoch in range(30):
    model.train()
    out = compiled(x, edge_index)
    loss = F.cross_entropy(out[train_mask], y[train_mask])
    opt.zero_grad()
    loss.backward()
    opt.step()
    if epoch % 10 == 9:
        model.eval()
        with torch.no_grad():
            acc = (compiled(x, edge_index).argmax(1) == y)[~train_mask].float().mean()
        print(f"epoch {epoch + 1}: loss {loss.item():.4f} val acc {acc.item():.3f}")
