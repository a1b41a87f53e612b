"""Every kernel to the user's code (issue 23), on real Inductor runs on CPU: backward kernels name the forward
modules they differentiate, fused kernels every module they fused, and module paths resolve to the user's lines that
built them. Expected lines are the fixture's marked lines and the corpus programs' source, written by hand."""

from __future__ import annotations

from pathlib import Path

import pytest
from kernels_testing import MIXER, MLP, VIT, line_of

pytestmark = pytest.mark.inductor


def kernels(analysis, role=None):
    return [k for g in analysis.graphs for k in g.kernels if role is None or k.graph == role]


def attributed(k) -> bool:
    return bool(k.modules) or bool(k.source_lines) or any(m.built_at for m in k.modules)


@pytest.mark.parametrize("program", ["mlp", "vit", "mixer"])
def test_every_kernel_forward_and_backward_carries_a_module_or_a_user_line(program, request):
    analysis = request.getfixturevalue(program)
    ks = kernels(analysis)
    roles = {k.graph for k in ks}
    assert roles >= ({"forward", "backward"} if program != "mixer" else {"inference"} | roles), roles
    missing = [(k.graph, k.name) for k in ks if not attributed(k)]
    assert ks and not missing, missing
    if program != "mixer":
        assert {k.kind for k in kernels(analysis, "backward")} >= {"extern"}  # library GEMMs attributed too
    if program == "vit":  # every kind: generated, extern (GEMMs) and fallbacks (SDPA, convolution backward)
        assert {k.kind for k in kernels(analysis, "backward")} >= {"extern", "fallback"}
        assert {k.kind for k in kernels(analysis, "forward")} >= {"extern", "fallback"}


def test_mlp_backward_kernels_name_the_layers_they_differentiate(mlp):
    backward = kernels(mlp, "backward")
    # torch's backward of a Linear is two GEMMs (input and weight gradients) for the last layer, one for the first
    gemms = [[m.path for m in k.modules] for k in backward if k.kind == "extern"]
    assert sorted(gemms) == [["0"], ["3"], ["3"]], gemms
    assert all(m.cls == "Linear" for k in backward if k.kind == "extern" for m in k.modules)


def test_mlp_fused_gelu_layer_norm_kernel_names_both_layers(mlp):
    (fused,) = [k for k in kernels(mlp, "forward") if "gelu" in k.name and "layer_norm" in k.name]
    assert [(m.path, m.cls) for m in fused.modules] == [("1", "GELU"), ("2", "LayerNorm")]
    (fused_bwd,) = [k for k in kernels(mlp, "backward") if "gelu_backward" in k.name]
    assert {("1", "GELU"), ("2", "LayerNorm")} <= {(m.path, m.cls) for m in fused_bwd.modules}


def test_mlp_module_paths_resolve_to_the_lines_that_built_them(mlp):
    expected = {"0": line_of(MLP, "# FC1 LINE"), "1": line_of(MLP, "# GELU LINE"), "2": line_of(MLP, "# NORM LINE"),
                "3": line_of(MLP, "# FC2 LINE")}
    seen = {}
    for k in kernels(mlp):
        for m in k.modules:
            assert m.built_at is not None, (k.name, m)
            assert m.built_at.path.endswith("mlp_train.py")
            seen[m.path] = m.built_at.line
    assert seen == expected


def test_library_model_resolves_to_the_line_that_constructed_it(vit):
    # ViTForImageClassification is transformers' class: every module under it resolves to the user's construction
    built = {(m.built_at.path, m.built_at.line, m.built_by) for k in kernels(vit) for m in k.modules if m.built_at}
    line = line_of(VIT, "model = ViTForImageClassification(config)")
    assert {(Path(p).name, n) for p, n, _ in built} == {(VIT.name, line)}
    assert {how for _, _, how in built} <= {"ancestor", "constructed"}
    # the library line stays beside it: backward kernels of the attention's projections name those modules
    paths = {m.path for k in kernels(vit, "backward") for m in k.modules}
    assert any(p.endswith("attention.q_proj") for p in paths), paths  # transformers 5: self.q_proj = nn.Linear(...)


def test_user_class_attributes_resolve_to_their_assignments(mixer):
    built = {m.path: m.built_at.line for k in kernels(mixer) for m in k.modules if m.built_at and m.path}
    assert built.get("norm") == line_of(MIXER, "self.norm = nn.LayerNorm(dim)")
    assert built.get("mix") == line_of(MIXER, "self.mix = nn.Linear(tokens, tokens)")


def test_a_warm_run_attributes_its_kernels_like_the_cold_run(mlp, mlp_warm):
    # caches hit: nothing compiled, the node stacks the cold compile left beside Inductor's cache are replayed
    def table(analysis):
        return [(k.graph, k.name, [(m.path, m.cls) for m in k.modules]) for k in kernels(analysis)]

    assert table(mlp_warm) == table(mlp)
    assert any(g.cache.get("fx_graph") == "hit" or "inductor_backward" in g.cache for g in mlp_warm.graphs)
