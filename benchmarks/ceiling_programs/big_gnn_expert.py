"""A three-layer GCN (Kipf & Welling) in plain torch, trained on neighbour-sampled mini-batch subgraphs as PyG's
"Scaling GNNs via Neighbor Sampling" tutorial trains on ogbn-products (100 features, 47 classes, 256 hidden, 1024
seed nodes a batch, the loss on the seed nodes only), with the layer written as the "GCN from scratch" tutorials and
PyG's gcn_norm write it: remove_self_loops by boolean-mask indexing (`edge_index[:, mask]`), add self-loops, the
symmetric degree normalisation by index_add_, the messages gathered by `x[row]` and scattered by index_add_. Each
batch's subgraph has a different node and edge count (the sampler's); an epoch loop calls train_epoch(), which reads
loss.item() and the correct count every batch. The model compiled as PyG's "Compiled Graph Neural Networks" guide
shows (`model = torch.compile(model)`). Default: subgraphs of 80k-160k nodes, ~8 edges a node, out of a 400k-node
graph. --small 1: 800-1600-node subgraphs, hidden 32.

The expert version: the hand fix (big_gnn_fixed.py) plus what pays on a GPU: the GCN normalisation computed once a batch
and shared by the three layers (the user's layer recomputes it per layer), the forward and loss compiled whole
(fullgraph=True) with the node and edge counts marked dynamic (one graph for every subgraph size: padding the subgraphs
to static buckets would change BatchNorm's batch statistics, and CUDA graphs would record once per size for a replay an
epoch), TF32, fused Adam, the sampled subgraphs page-locked and copied non_blocking, and the loss and correct counts
summed on the device and read once per epoch (no host sync in the step)."""

import torch
import torch.nn as nn
import torch.nn.functional as F
from _timing import StepTimer, program_arguments


def gcn_norm(edge_index, num_nodes, dtype):
    # the existing self-loops weighted 0 instead of removed by a boolean mask (a graph break)
    keep = (edge_index[0] != edge_index[1]).to(dtype)
    loops = torch.arange(num_nodes, device=edge_index.device)
    edge_index = torch.cat([edge_index, torch.stack([loops, loops])], dim=1)
    row, col = edge_index[0], edge_index[1]
    edge_weight = torch.cat([keep, torch.ones(num_nodes, dtype=dtype, device=row.device)])
    deg = torch.zeros(num_nodes, dtype=dtype, device=row.device).index_add_(0, col, edge_weight)
    deg_inv_sqrt = deg.pow(-0.5)
    deg_inv_sqrt.masked_fill_(deg_inv_sqrt == float("inf"), 0)
    return edge_index, deg_inv_sqrt[row] * edge_weight * deg_inv_sqrt[col]


class GCNConv(nn.Module):
    def __init__(self, in_channels, out_channels):
        super().__init__()
        self.lin = nn.Linear(in_channels, out_channels, bias=False)
        self.bias = nn.Parameter(torch.zeros(out_channels))

    def forward(self, x, edge_index, norm):
        """edge_index and norm from gcn_norm, computed once per batch and shared by the layers."""
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
        edge_index, norm = gcn_norm(edge_index, x.size(0), x.dtype)
        for conv, bn in zip(self.convs[:-1], self.norms):
            x = F.relu(bn(conv(x, edge_index, norm)))
            x = F.dropout(x, p=self.dropout, training=self.training)
        return self.convs[-1](x, edge_index, norm)


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


def main() -> None:
    args = program_arguments(epochs=4, steps=0, small=0)
    if args.small:
        num_nodes, lo, hi, seeds, hidden, steps = 4000, 800, 1600, 64, 32, args.steps or 6
    else:
        num_nodes, lo, hi, seeds, hidden, steps = 400_000, 80_000, 160_000, 1024, 256, args.steps or 24
    in_channels, classes = 100, 47
    cuda = args.device.startswith("cuda")
    torch.backends.cuda.matmul.allow_tf32 = True

    torch.manual_seed(0)
    generator = torch.Generator().manual_seed(0)
    features = torch.randn(num_nodes, in_channels, generator=generator)
    labels = (features @ torch.randn(in_channels, classes, generator=generator)).argmax(-1)
    features, labels = features.to(args.device), labels.to(args.device)
    batches = sample_subgraphs(steps, num_nodes, lo, hi, seeds, generator)
    if cuda:  # page-locked, so the per-step copies run asynchronously
        batches = [(n_id.pin_memory(), edge_index.pin_memory(), b) for n_id, edge_index, b in batches]

    model = GCN(in_channels, hidden, classes).to(args.device)
    optimizer = torch.optim.Adam(model.parameters(), lr=0.003, **({"fused": True} if cuda else {"foreach": True}))

    # the forward and loss compiled whole; node and edge counts dynamic (one graph for every subgraph size; CUDA graphs
    # would record one graph per size, each replayed only once an epoch)
    @torch.compile(backend=args.backend, fullgraph=True)
    def forward_loss(x, edge_index, y, batch_size: int):
        out = model(x, edge_index)[:batch_size]
        return F.cross_entropy(out, y), (out.argmax(dim=-1) == y).sum()

    timer = StepTimer(warmup=steps + 2, device=args.device)
    for epoch in range(args.epochs):
        model.train()
        total_loss = torch.zeros((), device=args.device)
        total_correct = torch.zeros((), dtype=torch.long, device=args.device)
        total_examples = 0
        for n_id, edge_index, batch_size in batches:
            timer.start()
            n_id = n_id.to(args.device, non_blocking=True)
            edge_index = edge_index.to(args.device, non_blocking=True)
            x, y = features[n_id], labels[n_id[:batch_size]]
            torch._dynamo.mark_dynamic(x, 0)
            torch._dynamo.mark_dynamic(edge_index, 1)
            optimizer.zero_grad(set_to_none=True)
            loss, correct = forward_loss(x, edge_index, y, batch_size)
            loss.backward()
            optimizer.step()
            total_loss += loss.detach() * batch_size
            total_correct += correct
            total_examples += batch_size
            timer.stop()
        print(f"epoch {epoch} loss {total_loss.item() / total_examples:.4f} "
              f"approx train accuracy {total_correct.item() / total_examples:.3f}")


if __name__ == "__main__":
    main()
