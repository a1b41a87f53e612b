"""Every kernel of a model built from torch.nn layers is named after its module (fully qualified path under the
compiled module), with its innermost frame, and the user's line where the graph has one (Inductor, CPU)."""

from __future__ import annotations

import pytest
from compiler_testing import line_of, tdiag_run

pytestmark = pytest.mark.inductor

PROGRAM = "kernels_modules.py"


@pytest.fixture(scope="module")
def kernels(inductor_env, tmp_path_factory):
    from tdiag.analyzer import build

    analysis = build(tdiag_run(PROGRAM, tmp_path_factory.mktemp("modules") / "run", inductor_env))
    (graph,) = analysis.graphs
    return graph.kernels


def test_every_kernel_has_a_module(kernels):
    assert kernels
    assert all(k.module is not None and k.module_class for k in kernels), [(k.name, k.module) for k in kernels]


def test_each_linear_is_named_by_its_path(kernels):
    # five nn.Linear layers, each one GEMM (extern addmm on CPU), in execution order
    gemms = [(k.module, k.module_class) for k in kernels if "mm" in k.name]
    assert gemms == [("embed", "Linear"),
                     ("encoder.layers.0.mlp.0", "Linear"), ("encoder.layers.0.mlp.2", "Linear"),
                     ("encoder.layers.1.mlp.0", "Linear"), ("encoder.layers.1.mlp.2", "Linear")]


def test_fused_kernels_name_the_closest_common_module(kernels):
    non_gemm = [k for k in kernels if "mm" not in k.name]
    allowed = {"", "encoder", "encoder.layers.0", "encoder.layers.1", "encoder.layers.0.mlp.1", "encoder.layers.1.mlp.1",
               "encoder.layers.0.norm", "encoder.layers.1.norm", "act", "norm"}
    assert non_gemm and all(k.module in allowed for k in non_gemm), [(k.name, k.module) for k in non_gemm]
    # each block's GELU is its own kernel, between that block's two Linear layers
    assert {k.module for k in non_gemm if "gelu" in k.name and "norm" not in k.name} >= {"encoder.layers.0.mlp.1",
                                                                                      "encoder.layers.1.mlp.1"}


def test_user_line_where_the_graph_has_one_and_the_layer_frame_where_not(kernels):
    block_line = line_of(PROGRAM, "# BLOCK LINE")
    for k in kernels:
        if k.module.startswith("encoder.layers."):
            assert (PROGRAM, block_line) in {(r.path, r.line) for r in k.source_lines}, k
            assert k.frame is not None
        if k.module == "embed":
            # called by nn.Sequential.forward only: no user line, the innermost frame is Linear.forward in torch
            assert k.source_lines == []
            assert k.frame is not None and k.frame.path.endswith("torch/nn/modules/linear.py")
            assert k.frame.code == "Linear.forward"
