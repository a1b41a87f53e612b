"""The expert version: the hand-fixed program (gnn_train_fixed.py) plus what torch's documentation gives for a small
step on a GPU: the compiled callable under mode="reduce-overhead" (CUDA graphs; `_timing.cuda_graphs`: only with
Inductor on CUDA), torch.compiler.cudagraph_mark_step_begin() before each step (the training-loop marker of the CUDA
Graph Trees docs), and the optimizer step compiled by the "torch.compile the optimizer" recipe
(`@torch.compile(fullgraph=False) def opt_step(): opt.step()`). Shapes vary over a few sizes only (marked dynamic as
in the hand fix), so CUDA graphs record once per size and then replay.

Hand-fixed: torch_geometric: a two-layer GCN trained on a stream of synthetic mini-batch subgraphs (node and edge
counts change per batch, as NeighborLoader's do; no dataset download), the model compiled as PyG's "Compiled Graph
Neural Networks" guide shows (`model = torch.compile(model)`). Hand-fixed: the self-loops GCNConv adds on every call
(a boolean mask, whose output size depends on the data: a graph break) added once per graph when the data is
prepared (GCNConv(..., add_self_loops=False) then computes the same), the node and edge counts marked dynamic, the
model compiled whole (fullgraph=True)."""

import torch
from _timing import StepTimer, cuda_graphs, program_arguments
from torch_geometric.nn import GCNConv
from torch_geometric.utils import add_remaining_self_loops


class GCN(torch.nn.Module):
    def __init__(self, channels, hidden, classes):
        super().__init__()
        self.conv1 = GCNConv(channels, hidden, add_self_loops=False)
        self.conv2 = GCNConv(hidden, classes, add_self_loops=False)

    def forward(self, x, edge_index):
        x = self.conv1(x, edge_index).relu()
        return self.conv2(x, edge_index)


def main() -> None:
    args = program_arguments(steps=24)

    torch.manual_seed(0)
    graphs = []
    for nodes in (200, 240, 280):
        edge_index = torch.randint(0, nodes, (2, nodes * 8))
        edge_index, _ = add_remaining_self_loops(edge_index, num_nodes=nodes)
        graphs.append((torch.randn(nodes, 32), edge_index, torch.randint(0, 4, (nodes,))))
    model = GCN(32, 64, 4).to(args.device)
    model = torch.compile(model, backend=args.backend, fullgraph=True, mode=cuda_graphs(args))
    opt = torch.optim.Adam(model.parameters(), lr=0.01)
    @torch.compile(backend=args.backend, fullgraph=False)  # torch's compiled-optimizer recipe
    def opt_step():
        opt.step()

    timer = StepTimer(warmup=8, device=args.device)
    seen = right = 0
    for i in range(args.steps):
        x, edge_index, y = (t.to(args.device) for t in graphs[i % 3])
        for t, dim in ((x, 0), (edge_index, 1), (y, 0)):
            torch._dynamo.mark_dynamic(t, dim)
        torch.compiler.cudagraph_mark_step_begin()
        timer.start()
        out = model(x, edge_index)
        loss = torch.nn.functional.cross_entropy(out, y)
        loss.backward()
        opt_step()
        opt.zero_grad()
        timer.stop()
        seen, right = seen + len(y), right + int((out.argmax(-1) == y).sum())
        if i % 6 == 5:
            print(f"step {i} loss {loss.item():.4f} accuracy {right / seen:.3f}")


if __name__ == "__main__":
    main()
