"""The kernel -> module join on its own (no torch): post-grad nodes -> Dynamo nodes -> module stacks."""

from __future__ import annotations

from tdiag.analyzer.kernel_modules import GraphModules, attribute, module_label
from tdiag.analyzer.model import Kernel
from tdiag.analyzer.paths import PathMapper

LINEAR_PY = "/venv/lib/python3.11/site-packages/torch/nn/modules/linear.py"
# torch.compile(TokenMixer()): Dynamo lists submodules only, the compiled module itself is the graph's root
MODULES = GraphModules("TokenMixer", {
    "linear": {"stack": [["mix", "Linear"]], "forward": [LINEAR_PY, 130]},
    "layer_norm": {"stack": [["norm", "LayerNorm"]], "forward": [None, None]},
    "y": {"stack": [], "forward": [None, None]},
})
POST_TO_PRE = {"mm": ["linear"], "add_2": ["linear"], "scaled_swish": ["y"], "var_mean": ["layer_norm"]}


def kernel(*nodes: str) -> Kernel:
    return Kernel("k", "pointwise", "cpp", fused_nodes=list(nodes))


def test_one_layer_names_it_and_its_forward():
    k = kernel("mm")
    attribute(k, MODULES, POST_TO_PRE, PathMapper("/proj"))
    assert (k.module, k.module_class, module_label(k)) == ("mix", "Linear", "mix (Linear)")
    assert (k.frame.path, k.frame.line) == ("<site-packages>/torch/nn/modules/linear.py", 130)


def test_fused_across_layers_names_the_common_ancestor():
    k = kernel("var_mean", "add_2")
    attribute(k, MODULES, POST_TO_PRE, PathMapper("/proj"))
    # named after their common ancestor, and the label lists every layer it fused (issue 23)
    assert (k.module, k.module_class) == ("", "TokenMixer")
    assert [(m.path, m.cls) for m in k.modules] == [("norm", "LayerNorm"), ("mix", "Linear")]
    assert module_label(k) == "norm (LayerNorm), mix (Linear)"
    assert k.frame is None  # several layers: no single forward to point at


def test_code_of_the_compiled_module_itself_is_the_root():
    k = kernel("scaled_swish")
    attribute(k, MODULES, POST_TO_PRE, PathMapper("/proj"))
    assert (k.module, k.module_class) == ("", "TokenMixer") and k.frame is None


def test_unknown_nodes_leave_the_kernel_unattributed():
    k = kernel("not_a_node")
    attribute(k, MODULES, POST_TO_PRE, PathMapper("/proj"))
    assert (k.module, k.module_class, k.frame) == (None, None, None)
