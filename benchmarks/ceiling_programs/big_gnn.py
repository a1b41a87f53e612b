"""A three-layer GCN (Kipf & Welling) in plain torch, trained on neighbour-sampled mini-batch subgraphs as PyG's
"Scaling GNNs via Neighbor Sampling" tutorial trains on ogbn-products (100 features, 47 classes, 256 hidden, 1024
seed nodes a batch, the loss on the seed nodes only), with the layer written as the "GCN from scratch" tutorials and
PyG's gcn_norm write it: remove_self_loops by boolean-mask indexing (`edge_index[:, mask]`), add self-loops, the
symmetric degree normalisation by index_add_, the messages gathered by `x[row]` and scattered by index_add_. Each
batch's subgraph has a different node and edge count (the sampler's); an epoch loop calls train_epoch(), which reads
loss.item() and the correct count every batch. The model compiled as PyG's "Compiled Graph Neural Networks" guide
shows (`model = torch.compile(model)`). Default: subgraphs of 80k-160k nodes, ~8 edges a node, out of a 400k-node
graph. --small 1: 800-1600-node subgraphs, hidden 32."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from _timing import StepTimer, program_arguments


def remove_self_loops(edge_index):
    mask = edge_index[0] != edge_index[1]
    return edge_index[:, mask]


def gcn_norm(edge_index, num_nodes, dtype):
    edge_index = remove_self_loops(edge_index)
    loops = torch.arange(num_nodes, device=edge_index.device)
    edge_index = torch.cat([edge_index, torch.stack([loops, loops])], dim=1)
    row, col = edge_index[0], edge_index[1]
    edge_weight = torch.ones(row.size(0), dtype=dtype, device=row.device)
    deg = torch.zeros(num_nodes, dtype=dtype, device=row.device).index_add_(0, col, edge_weight)
    deg_inv_sqrt = deg.pow(-0.5)
    deg_inv_sqrt.masked_fill_(deg_inv_sqrt == float("inf"), 0)
    return edge_index, deg_inv_sqrt[row] * edge_weight * deg_inv_sqrt[col]


class GCNConv(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.lin = nn.Linear(in_channels, out_channels, bias=False)
        self.bias = nn.Parameter(torch.zeros(out_channels))

    def forward(self, x, edge_index):
        edge_index, norm = gcn_norm(edge_index, x.size(0), x.dtype)
        x = self.lin(x)
        row, col = edge_index
        out = torch.zeros_like(x).index_add_(0, col, x[row] * norm.unsqueeze(-1))
        return out + self.bias


class GCN(nn.Module):
    def __init__(self, in_channels, hidden, out_channels, num_layers=3, dropout=0.5):
        super().__init__()
        self.convs = nn.ModuleList([GCNConv(in_channels, hidden)])
        self.convs.extend(GCNConv(hidden, hidden) for _ in range(num_layers - 2))
        self.convs.append(GCNConv(hidden, out_channels))
        self.norms = nn.ModuleList(nn.BatchNorm1d(hidden) for _ in range(num_layers - 1))
        self.dropout = dropout

    def forward(self, x, edge_index):
        for conv, norm in zip(self.convs[:-1], self.norms):
            x = F.relu(norm(conv(x, edge_index)))
            x = F.dropout(x, p=self.dropout, training=self.training)
        return self.convs[-1](x, edge_index)


def sample_subgraphs(count, num_nodes, min_nodes, max_nodes, seed_nodes, generator):
    """What a neighbour sampler yields: the global ids of a subgraph's nodes (the seed nodes first) and its edges
    in local ids; some edges are self-loops, as real graphs hold."""
    batches = []
    for _ in range(count):
        n = int(torch.randint(min_nodes, max_nodes, (1,), generator=generator))
        n_id = torch.randperm(num_nodes, generator=generator)[:n]
        dst = torch.randint(0, n, (n * 8,), generator=generator)
        src = torch.where(torch.rand(n * 8, generator=generator) < 0.02, dst,
                          torch.randint(0, n, (n * 8,), generator=generator))
        batches.append((n_id, torch.stack([src, dst]), seed_nodes))
    return batches


def train_epoch(model, batches, features, labels, optimizer, device, timer):
    model.train()
    total_loss = total_correct = total_examples = 0
    for n_id, edge_index, batch_size in batches:
        timer.start()
        n_id, edge_index = n_id.to(device), edge_index.to(device)
        x, y = features[n_id], labels[n_id[:batch_size]]
        optimizer.zero_grad()
        out = model(x, edge_index)[:batch_size]
        loss = F.cross_entropy(out, y)
        loss.backward()
        optimizer.step()
        total_loss += float(loss) * batch_size
        total_correct += int((out.argmax(dim=-1) == y).sum())
        total_examples += batch_size
        timer.stop()
    return total_loss / total_examples, total_correct / total_examples


def main() -> None:
    args = program_arguments(epochs=4, steps=0, small=0)
    if args.small:
        num_nodes, lo, hi, seeds, hidden, steps = 4000, 800, 1600, 64, 32, args.steps or 6
    else:
        num_nodes, lo, hi, seeds, hidden, steps = 400_000, 80_000, 160_000, 1024, 256, args.steps or 24
    in_channels, classes = 100, 47

    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(0)
    features = torch.randn(num_nodes, in_channels, generator=generator)
    labels = (features @ torch.randn(in_channels, classes, generator=generator)).argmax(-1)
    features, labels = features.to(args.device), labels.to(args.device)
    batches = sample_subgraphs(steps, num_nodes, lo, hi, seeds, generator)

    model = GCN(in_channels, hidden, classes).to(args.device)
    model = torch.compile(model, backend=args.backend)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.003)

    timer = StepTimer(warmup=steps + 2, device=args.device)
    for epoch in range(args.epochs):
        loss, accuracy = train_epoch(model, batches, features, labels, optimizer, args.device, timer)
        print(f"epoch {epoch} loss {loss:.4f} approx train accuracy {accuracy:.3f}")


if __name__ == "__main__":
    main()
