"""Semi-supervised node classification with a two-layer GCN, written the way Kipf's pygcn does it: the
symmetrically normalised adjacency is a torch sparse COO tensor and each layer computes adj @ (x W) with
torch.spmm. Synthetic citation-like graph (stochastic block model), 20 labelled nodes per class."""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
N, C, FEATS = 1200, 4, 64


class GraphConvolution(nn.Module):
    def __init__(self, in_features, out_features):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(in_features, out_features))
        self.bias = nn.Parameter(torch.zeros(out_features))
        nn.init.xavier_uniform_(self.weight)

    def forward(self, x, adj):
        support = torch.mm(x, self.weight)
        output = torch.spmm(adj, support)
        return output + self.bias


class GCN(nn.Module):
    def __init__(self, nfeat, nhid, nclass, dropout=0.5):
        super().__init__()
        self.gc1 = GraphConvolution(nfeat, nhid)
        self.gc2 = GraphConvolution(nhid, nclass)
        self.dropout = dropout

    def forward(self, x, adj):
        x = F.relu(self.gc1(x, adj))
        x = F.dropout(x, self.dropout, training=self.training)
        x = self.gc2(x, adj)
        return F.log_softmax(x, dim=1)


def build_graph():
    labels = torch.arange(N) % C
    same = labels[:, None] == labels[None, :]
    prob = torch.where(same, torch.tensor(0.02), torch.tensor(0.002))
    a = (torch.rand(N, N) < prob).float().triu(1)
    a = a + a.t() + torch.eye(N)
    deg_inv_sqrt = a.sum(1).pow(-0.5)
    a = deg_inv_sqrt[:, None] * a * deg_inv_sqrt[None, :]
    centers = torch.randn(C, FEATS)
    x = 0.6 * centers[labels] + torch.randn(N, FEATS)
    return x, a.to_sparse(), labels


features, adj, labels = build_graph()
idx_train = torch.cat([torch.nonzero(labels == c).flatten()[:20] for c in range(C)])
idx_val = torch.arange(600, 800)
idx_test = torch.arange(800, N)

model = GCN(FEATS, 32, C)
compiled = torch.compile(model, backend="aot_eager")
optimizer = torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=5e-4)


def accuracy(output, target):
    return (output.argmax(1) == target).float().mean().item()


for epoch in range(100):
    model.train()
    optimizer.zero_grad()
    output = compiled(features, adj)
    loss_train = F.nll_loss(output[idx_train], labels[idx_train])
    loss_train.backward()
    optimizer.step()
    if epoch % 25 == 0:
        model.eval()
        with torch.no_grad():
            output = compiled(features, adj)
        print(f"epoch {epoch:3d}  loss_train {loss_train.item():.4f}  acc_val {accuracy(output[idx_val], labels[idx_val]):.4f}")

model.eval()
with torch.no_grad():
    output = compiled(features, adj)
print(f"test accuracy: {accuracy(output[idx_test], labels[idx_test]):.4f}")
