"""The step-time patch kinds (RUN001's optimizer patches, RUN002's CUDA graphs) on recorded sources: which one the
device gets, the exact lines each writes, and where each refuses (NoPatch, with the reason the user reads).

These are the builders alone (libcst over a source snapshot, no torch); verification by a re-run is in
tests/fix/test_optimizer_patch.py. Expected texts are written by hand from torch's recipes.
"""

from __future__ import annotations

import textwrap

import pytest
from tdiag.analyzer.evidence import RuntimeShareEvidence
from tdiag.analyzer.model import Analysis, CompiledGraph, CudaGraphInfo, Finding, Kernel, RuntimeSummary, Summary
from tdiag.analyzer.suggestions import apply_patch, launch_bound, optimizer_step
from tdiag.analyzer.suggestions.helpers import compile_mode, compiled_optimizer_step, optimizer_foreach, optimizer_fused
from tdiag.analyzer.suggestions.helpers.context import NoPatch, SuggestionContext

TRAIN = textwrap.dedent("""\
    import torch
    from torch import nn

    model = nn.Linear(4, 4)
    compiled = torch.compile(model)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    for step in range(10):
        loss = compiled(torch.randn(2, 4)).sum()
        loss.backward()
        opt.step()
        opt.zero_grad()
""")


def _ctx(text: str = TRAIN, device: str = "cpu", inductor: bool = False, graphed: bool = False) -> SuggestionContext:
    graph = CompiledGraph(compile_id="0/0", frame_id=0, frame_compile_id=0, code_name="forward", path="train.py",
                          line=4)
    if inductor:
        graph.kernels = [Kernel(name="triton_poi_fused_0", kind="pointwise", backend="triton")]
    if graphed:
        graph.cudagraph = CudaGraphInfo(status="recorded")
    runtime = RuntimeSummary(status="measured", steps=10, device=device, window_s=0.1, step_function="forward",
                             step_line=4, device_busy_s=0.01 if device == "cuda" else None)
    return SuggestionContext(Analysis(summary=Summary(runtime=runtime), graphs=[graph], sources={"train.py": text}))


def _finding(code: str = "RUN001", parts: dict[str, float] | None = None) -> Finding:
    evidence = RuntimeShareEvidence(seconds=0.05, share=0.5, steps=10, parts_ms_per_step=parts or {"optimizer": 4.0,
                                                                                                "python": 0.5})
    return Finding(code=code, name="x", severity="warning", message="m", fix="f", path="train.py", line=5,
                   function="forward", evidence=evidence)


def _patched(suggestion, text: str = TRAIN) -> str:
    new = apply_patch(text, suggestion.patch)
    assert new is not None
    return new


def test_cpu_gets_foreach_first_and_fused_only_after_it():
    """On a CPU fused=True measured 10x slower than the default loop on one machine and faster on another: foreach
    is the patch, fused a later candidate for verification to measure."""
    suggestion = optimizer_step.suggest(_finding(), _ctx(device="cpu"))
    assert "foreach=True" in suggestion.title
    assert "opt = torch.optim.Adam(model.parameters(), lr=1e-3, foreach=True)\n" in _patched(suggestion)
    assert [c.title.split(" (")[0] for c in suggestion.candidates] == ["Give Adam fused=True"]


def test_cpu_with_inductor_also_offers_the_compiled_step():
    kinds = [c.title for c in optimizer_step.candidates(_finding(), _ctx(device="cpu", inductor=True))]
    assert len(kinds) == 3 and "foreach" in kinds[0] and "Compile the optimizer step" in kinds[2]


def test_cuda_gets_fused_first():
    candidates = optimizer_step.candidates(_finding(), _ctx(device="cuda", inductor=True))
    assert "fused=True" in candidates[0].title
    assert "opt = torch.optim.Adam(model.parameters(), lr=1e-3, fused=True)\n" in _patched(candidates[0])


def test_compiled_optimizer_step_is_torchs_recipe():
    suggestion = compiled_optimizer_step.build(_ctx(), "train.py")
    expected = TRAIN.replace("    opt.step()\n", "    opt_step()\n").replace(
        "opt = torch.optim.Adam(model.parameters(), lr=1e-3)\n",
        "opt = torch.optim.Adam(model.parameters(), lr=1e-3)\n@torch.compile(fullgraph=False)\ndef opt_step():\n"
        "    opt.step()\n",
    )
    assert _patched(suggestion) == expected


TRAIN_IN_A_FUNCTION = textwrap.dedent("""\
    import torch
    from torch import nn


    def train(model, optimizer, steps):
        for step in range(steps):
            loss = model(torch.randn(2, 4)).sum()
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()


    def main():
        torch.manual_seed(0)
        model = nn.Linear(4, 4)
        optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
        train(torch.compile(model, backend="aot_eager"), optimizer, 3)
        print(f"weight {model.weight.sum().item():.5f}")


    main()
""")


def test_a_step_in_another_function_than_the_optimizer_gets_a_module_level_compiled_step(tmp_path):
    """big_bert_cls on the H100 (session 29): the optimizer built in main() and stepped in train(..., optimizer, ...)
    got a closure defined in main() and `optimizer_step()` in train(): a NameError. The compiled step is then defined
    at module level and takes the optimizer; the patched program runs and prints what the original prints."""
    import subprocess
    import sys

    new = _patched(compiled_optimizer_step.build(_ctx(TRAIN_IN_A_FUNCTION), "train.py"), TRAIN_IN_A_FUNCTION)
    assert "from torch import nn\n\n\n@torch.compile(fullgraph=False)\ndef optimizer_step(optimizer):\n" \
           "    optimizer.step()\n\n\ndef train(" in new, new
    assert "        optimizer_step(optimizer)\n        optimizer.zero_grad()\n" in new
    assert "    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)\n        train(" not in new
    outputs = []
    for text in (TRAIN_IN_A_FUNCTION, new):
        (tmp_path / "train.py").write_text(text)
        proc = subprocess.run([sys.executable, "train.py"], cwd=tmp_path, capture_output=True, text=True, timeout=300)
        assert proc.returncode == 0, proc.stderr
        outputs.append(proc.stdout)
    assert outputs[0] == outputs[1] and outputs[0].startswith("weight ")


def test_compiled_step_with_a_scheduler_takes_lr_as_a_tensor():
    text = TRAIN.replace("for step", "sched = torch.optim.lr_scheduler.StepLR(opt, 1)\nfor step").replace(
        "    opt.zero_grad()\n", "    opt.zero_grad()\n    sched.step()\n")
    new = _patched(compiled_optimizer_step.build(_ctx(text), "train.py"), text)
    assert "opt = torch.optim.Adam(model.parameters(), lr=torch.tensor(1e-3))\n" in new
    assert "    opt_step()\n" in new and "    sched.step()\n" in new  # the scheduler's step is not the optimizer's


def test_scheduler_without_lr_is_refused():
    text = TRAIN.replace(", lr=1e-3", "").replace(
        "for step", "sched = torch.optim.lr_scheduler.StepLR(opt, 1)\nfor step")
    with pytest.raises(NoPatch, match="lr="):
        compiled_optimizer_step.build(_ctx(text), "train.py")


def test_explicit_foreach_false_is_flipped_and_true_refused():
    off = TRAIN.replace("lr=1e-3)", "lr=1e-3, foreach=False)")
    assert "lr=1e-3, foreach=True)" in _patched(optimizer_foreach.build(_ctx(off), "train.py"), off)
    on = TRAIN.replace("lr=1e-3)", "lr=1e-3, foreach=True)")
    with pytest.raises(NoPatch, match="already passes foreach=True"):
        optimizer_foreach.build(_ctx(on), "train.py")
    with pytest.raises(NoPatch, match="foreach=True"):
        optimizer_fused.build(_ctx(on), "train.py")


def test_fused_true_already_refuses_foreach():
    # torch raises "`fused` and `foreach` cannot be `True` together": a round after fused=True must not offer it
    fused = TRAIN.replace("lr=1e-3)", "lr=1e-3, fused=True)")
    with pytest.raises(NoPatch, match="fused=True, which foreach=True cannot be combined with"):
        optimizer_foreach.build(_ctx(fused), "train.py")


def test_a_tensor_learning_rate_refuses_foreach():
    # torch raises "lr as a Tensor is not supported for capturable=False and foreach=True" (seen on a step whose
    # round 1 gave AdamW its lr as a tensor for the scheduler): the candidate would only crash the re-run
    tensor_lr = TRAIN.replace("lr=1e-3)", "lr=torch.tensor(1e-3))")
    with pytest.raises(NoPatch, match="lr is a tensor"):
        optimizer_foreach.build(_ctx(tensor_lr), "train.py")


def test_a_fused_optimizer_is_not_offered_the_compiled_step():
    # GPT-2's round 2 kept reduce-overhead with fused=True; RUN002 then names the optimizer between the replays, and
    # the compiled step on top of the fused kernel would only cost another round
    fused = TRAIN.replace("lr=1e-3)", "lr=1e-3, fused=True)")
    with pytest.raises(NoPatch, match="fused already"):
        compiled_optimizer_step.build(_ctx(fused), "train.py")
    text = fused.replace("torch.compile(model)", 'torch.compile(model, mode="reduce-overhead")')
    with pytest.raises(NoPatch, match="CUDA graphs are on"):
        launch_bound.suggest(_finding("RUN002"), _ctx(text, device="cuda", inductor=True, graphed=True))


LIGHTNING = textwrap.dedent("""\
    import lightning as L
    import torch


    class Classifier(L.LightningModule):
        def training_step(self, batch, batch_idx):
            x, y = batch
            return torch.nn.functional.cross_entropy(self(x), y)

        def configure_optimizers(self):
            opt = torch.optim.AdamW(self.parameters(), lr=1e-3)
            return [opt], [torch.optim.lr_scheduler.StepLR(opt, 1)]
""")


def test_lightnings_configured_optimizer_gets_the_keyword_patches_by_device_and_not_the_compiled_step():
    """Lightning steps the optimizer configure_optimizers returns itself (optimizer.step(closure)): foreach and fused
    rewrite its constructor; torch's compiled-step recipe has no step of the user's to replace."""
    cpu = optimizer_step.candidates(_finding(), _ctx(LIGHTNING, device="cpu", inductor=True))
    assert [c.title.split(" (")[0] for c in cpu] == ["Give AdamW foreach=True", "Give AdamW fused=True"]
    assert "        opt = torch.optim.AdamW(self.parameters(), lr=1e-3, foreach=True)\n" in _patched(cpu[0], LIGHTNING)
    cuda = optimizer_step.candidates(_finding(), _ctx(LIGHTNING, device="cuda", inductor=True))
    assert [c.title.split(" (")[0] for c in cuda] == ["Give AdamW fused=True"]
    with pytest.raises(NoPatch, match="Lightning steps the optimizer"):
        compiled_optimizer_step.build(_ctx(LIGHTNING), "train.py")
    # not a LightningModule: nothing steps that optimizer that the source shows
    plain = LIGHTNING.replace("(L.LightningModule)", "(torch.nn.Module)")
    assert optimizer_step.candidates(_finding(), _ctx(plain, device="cpu")) == []


def test_optimizer_without_fused_kernel_is_refused():
    text = TRAIN.replace("torch.optim.Adam", "torch.optim.RMSprop")
    with pytest.raises(NoPatch, match="no fused implementation"):
        optimizer_fused.build(_ctx(text), "train.py")


def test_no_optimizer_patch_when_the_optimizer_is_not_the_cost():
    finding = _finding(parts={"python": 4.0, "optimizer": 0.1})
    assert optimizer_step.candidates(finding, _ctx()) == []
    with pytest.raises(NoPatch, match="not a large part"):
        optimizer_step.suggest(finding, _ctx())


def test_reduce_overhead_on_the_step_compile():
    suggestion = launch_bound.suggest(_finding("RUN002"), _ctx(device="cuda", inductor=True))
    assert 'compiled = torch.compile(model, mode="reduce-overhead")\n' in _patched(suggestion)


def test_reduce_overhead_keeps_a_users_mode():
    text = TRAIN.replace("torch.compile(model)", 'torch.compile(model, mode="max-autotune")')
    with pytest.raises(NoPatch, match="already passes mode="):
        compile_mode.build(_ctx(text, device="cuda"), "train.py", "forward", 4)


def test_under_cuda_graphs_run002_patches_the_optimizer_not_the_mode():
    """RUN002 with CUDA graphs already on never re-suggests reduce-overhead: the optimizer left between replays
    gets its patch."""
    text = TRAIN.replace("torch.compile(model)", 'torch.compile(model, mode="reduce-overhead")')
    suggestion = launch_bound.suggest(_finding("RUN002"), _ctx(text, device="cuda", inductor=True, graphed=True))
    assert "fused=True" in suggestion.title


def test_a_dynamic_graph_recorded_again_gets_cudagraph_skip_dynamic_graphs():
    from tdiag.analyzer.model import CudaGraphRecording
    from tdiag.analyzer.suggestions import cudagraph_rerecord

    ctx = _ctx(device="cuda", inductor=True, graphed=True)
    finding = Finding(code="CGR002", name="x", severity="warning", message="m", fix="f", path="train.py", line=8,
                      compile_ids=["0/0"])
    ctx.analysis.graphs[0].cudagraph.recordings = [CudaGraphRecording(mode="FORWARD", symint_key=str(n))
                                                   for n in (16, 24)]
    new = _patched(cudagraph_rerecord.suggest(finding, ctx))
    assert "from torch import nn\ntorch._inductor.config.triton.cudagraph_skip_dynamic_graphs = True\n" in new
    ctx.analysis.graphs[0].cudagraph.recordings = [CudaGraphRecording(mode="FORWARD", inputs=["[16, 4]"])]
    with pytest.raises(NoPatch, match="static"):
        cudagraph_rerecord.suggest(finding, ctx)


LOADER_TRAIN = textwrap.dedent("""\
    import torch
    from torch.utils.data import DataLoader, TensorDataset

    data = TensorDataset(torch.randn(100, 4), torch.randn(100, 4))
    train = DataLoader(data, batch_size=16, shuffle=True)
    evaluate = DataLoader(data, batch_size=16)
    step = torch.compile(torch.nn.Linear(4, 4), mode="reduce-overhead")
    for x, y in train:
        loss = (step(x) - y).pow(2).mean()
""")


def _recorded_again(text: str, sizes: list[list[str]], dynamic: bool = False):
    from tdiag.analyzer.model import CudaGraphRecording

    ctx = _ctx(text, device="cuda", inductor=True, graphed=True)
    ctx.analysis.graphs[0].cudagraph.recordings = [
        CudaGraphRecording(mode="FORWARD", inputs=inputs, symint_key=str(n) if dynamic else None)
        for n, inputs in enumerate(sizes)]
    finding = Finding(code="CGR002", name="x", severity="warning", message="m", fix="f", path="train.py", line=9,
                      compile_ids=["0/0"])
    return finding, ctx


def test_a_last_batch_recorded_again_gets_drop_last_on_the_shuffling_loader():
    """The epoch's remainder (100 = 6 x 16 + 4) is a second recording: drop_last=True on the training loader (the
    shuffling one; the evaluation loader is left alone), with torch's dynamic-graph switch as the next candidate."""
    from tdiag.analyzer.suggestions import cudagraph_rerecord

    finding, ctx = _recorded_again(LOADER_TRAIN, [["[4, 4]", "[16, 4]"], ["[4, 4]", "[4, 4]"]], dynamic=True)
    suggestion = cudagraph_rerecord.suggest(finding, ctx)
    new = _patched(suggestion, LOADER_TRAIN)
    assert "train = DataLoader(data, batch_size=16, shuffle=True, drop_last=True)\n" in new
    assert "evaluate = DataLoader(data, batch_size=16)\n" in new
    assert [c.title for c in suggestion.candidates] == [
        "Run dynamic-shape graphs without CUDA graphs (cudagraph_skip_dynamic_graphs)"]


def test_backward_recordings_do_not_hide_the_last_batch():
    """As the H200 recorded it (benchmarks/gpu_loader_remainder.py, torch 2.11): forward recordings for 64 and 40
    rows, and backward recordings whose inputs are the saved activations (another count): still the batch."""
    from tdiag.analyzer.model import CudaGraphRecording
    from tdiag.analyzer.suggestions import cudagraph_rerecord

    finding, ctx = _recorded_again(LOADER_TRAIN, [])
    ctx.analysis.graphs[0].cudagraph.recordings = [
        CudaGraphRecording(mode="FORWARD", inputs=["[64, 256]", "[64, 1]"]),
        CudaGraphRecording(mode="BACKWARD", inputs=["[64, 512]", "[64, 256]", "[512, 256]", "[64, 1]"]),
        CudaGraphRecording(mode="FORWARD", inputs=["[40, 256]", "[40, 1]"]),
        CudaGraphRecording(mode="BACKWARD", inputs=["[40, 512]", "[40, 256]", "[512, 256]", "[40, 1]"]),
    ]
    new = _patched(cudagraph_rerecord.suggest(finding, ctx), LOADER_TRAIN)
    assert "train = DataLoader(data, batch_size=16, shuffle=True, drop_last=True)\n" in new


def test_sequence_lengths_that_vary_get_no_drop_last():
    """Sizes differing past the first dimension are sequence lengths: dropping the last batch does not help."""
    from tdiag.analyzer.suggestions import cudagraph_rerecord

    finding, ctx = _recorded_again(LOADER_TRAIN, [["[16, 12]"], ["[16, 30]"]])
    with pytest.raises(NoPatch, match="drop_last: the recordings' sizes do not differ in the batch dimension only"):
        cudagraph_rerecord.suggest(finding, ctx)


def test_drop_last_refused_where_the_user_chose_or_no_loader_stands_out():
    from tdiag.analyzer.suggestions import cudagraph_rerecord

    last = [["[16, 4]"], ["[4, 4]"]]
    kept = LOADER_TRAIN.replace("shuffle=True)", "shuffle=True, drop_last=keep_remainder)")
    with pytest.raises(NoPatch, match="already passes drop_last=keep_remainder"):
        cudagraph_rerecord.suggest(*_recorded_again(kept, last))
    two = LOADER_TRAIN.replace("shuffle=True)", "shuffle=False)")
    with pytest.raises(NoPatch, match="several DataLoaders"):
        cudagraph_rerecord.suggest(*_recorded_again(two, last))
    # a static graph per size with drop_last=False written out: flipped, like foreach=False
    flipped = LOADER_TRAIN.replace("shuffle=True)", "shuffle=True, drop_last=False)")
    new = _patched(cudagraph_rerecord.suggest(*_recorded_again(flipped, last)), flipped)
    assert "train = DataLoader(data, batch_size=16, shuffle=True, drop_last=True)\n" in new


def test_the_readme_demo_gets_its_optimizer_patch():
    """examples/train.py's largest finding in the README is RUN001 (the eager SGD step): it gets a patch now."""
    from pathlib import Path

    text = (Path(__file__).parents[2] / "examples" / "train.py").read_text()
    ctx = _ctx(text, device="cpu")
    ctx.analysis.sources = {"train.py": text}
    suggestion = optimizer_step.suggest(_finding(), ctx)
    assert "    opt = torch.optim.SGD(model.parameters(), lr=0.01, foreach=True)\n" in _patched(suggestion, text)
