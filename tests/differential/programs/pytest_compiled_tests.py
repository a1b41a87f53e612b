"""A pytest test module: tests that compile (one breaks, one recompiles), marked for tdiag's plugin with no limits, so
under the plugin each marked test records without failing."""

# differential: kind=pytest
import pytest
import torch


@pytest.mark.tdiag(max_graph_breaks=None, max_recompiles=None)
def test_break():
    @torch.compile(backend="eager")
    def f(x):
        y = x + 1
        print("logging")  # a graph break
        return y * 2

    assert f(torch.ones(2)).tolist() == [4.0, 4.0]


def test_unmarked():
    g = torch.compile(lambda x: x.relu(), backend="aot_eager")
    assert g(torch.tensor([-1.0, 1.0])).tolist() == [0.0, 1.0]


@pytest.mark.tdiag(max_graph_breaks=None, max_recompiles=None)
def test_recompile():
    @torch.compile(backend="eager")
    def h(x, k):
        return x * k

    assert [h(torch.ones(1), k).item() for k in (2, 3)] == [2.0, 3.0]
