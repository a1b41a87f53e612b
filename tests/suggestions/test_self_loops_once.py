"""GCNConv's self-loops added once before the compiled call (helpers/self_loops_once.py): the exact lines it writes
on a model of its own, and where it refuses because the layer's numbers could change. The builder alone (libcst
over a source snapshot, no torch); verified end to end by tests/fix/test_patches_from_torchs_evidence.py. Expected
texts written by hand from torch_geometric's documented `add_self_loops=False` + `add_remaining_self_loops`."""

from __future__ import annotations

import textwrap

import pytest
from tdiag.analyzer.evidence import BreakEvidence
from tdiag.analyzer.model import Finding, Frame
from tdiag.analyzer.suggestions import apply_patch
from tdiag.analyzer.suggestions.helpers import self_loops_once
from tdiag.analyzer.suggestions.helpers.context import NoPatch
from tdiag.analyzer.suggestions.helpers.syntax import SourceTree

PROGRAM = textwrap.dedent("""\
    import torch
    import torch_geometric.nn as gnn


    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.first = gnn.GCNConv(8, 16)
            self.second = gnn.GCNConv(16, 2)

        def forward(self, feats, edges):
            h = self.first(feats, edges).relu()
            return self.second(h, edges)


    net = torch.compile(Net())
    for batch in loader:
        out = net(batch.x, edges=batch.edge_index)
""")
LAYER_LINE, CALL_LINE = 12, 18


def _finding(line: int = LAYER_LINE) -> Finding:
    stack = [Frame("train.py", CALL_LINE, "<module>"), Frame("train.py", line, "forward"),
             Frame("<site-packages>/torch_geometric/nn/conv/gcn_conv.py", 99, "gcn_norm", is_user=False)]
    return Finding(code="BRK005", name="x", severity="warning", message="m", fix="f", path="train.py", line=line,
                   function="forward", evidence=BreakEvidence(reason="Dynamic shape operator", user_stack=stack))


def _build(text: str = PROGRAM, line: int = LAYER_LINE) -> str:
    return self_loops_once.build(SourceTree.parse("train.py", text), _finding(line), "GCNConv")


def test_the_layers_lose_their_loops_and_the_call_gets_them_once():
    patched = apply_patch(PROGRAM, _build())
    assert patched == textwrap.dedent("""\
        import torch
        import torch_geometric.nn as gnn
        from torch_geometric.utils import add_remaining_self_loops


        class Net(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.first = gnn.GCNConv(8, 16, add_self_loops=False)
                self.second = gnn.GCNConv(16, 2, add_self_loops=False)

            def forward(self, feats, edges):
                h = self.first(feats, edges).relu()
                return self.second(h, edges)


        net = torch.compile(Net())
        for batch in loader:
            edge_index_looped, _ = add_remaining_self_loops(batch.edge_index, num_nodes=batch.x.size(0))
            out = net(batch.x, edges=edge_index_looped)
    """)


def test_the_second_layers_break_gets_the_same_patch():
    # its features are the first layer's output: the node count comes from the first layer's, a forward parameter
    assert _build(line=13) == _build()


@pytest.mark.parametrize("original, changed", [
    ("gnn.GCNConv(8, 16)", "gnn.GCNConv(8, 16, improved=True)"),
    ("gnn.GCNConv(8, 16)", "gnn.GCNConv(8, 16, add_self_loops=True)"),
    ("gnn.GCNConv(8, 16)", "gnn.GCNConv(8, 16, False)"),
    ("self.first(feats, edges)", "self.first(feats, edges, weights)"),
    ("net(batch.x, edges=batch.edge_index)", "net(batch.x, edges=batch.edge_index.cuda())"),
])
def test_refused_where_the_layers_numbers_could_change_or_the_argument_is_computed(original, changed):
    with pytest.raises(NoPatch):
        _build(PROGRAM.replace(original, changed))
