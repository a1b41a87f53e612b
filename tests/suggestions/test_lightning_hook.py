"""The lightning-hook patch kind: a LightningModule's training_step that reads its loss to the host, keeps it in a
list and prints it gets those lines moved into `on_train_batch_end`, which Lightning runs uncompiled after the step.

The module is written as Lightning's "Speed up models by compiling them" guide and the ceiling program
(benchmarks/ceiling_programs/lightning_train.py) write it; the expected texts are written by hand from the ceiling
program's hand fix (lightning_train_fixed.py). Builders alone here (libcst, no torch); the patch verified by
`tdiag fix --verify` on a real Lightning run is in tests/library_corpus (lightning_list_log.py).
"""

from __future__ import annotations

import textwrap

import libcst as cst
import pytest
from tdiag.analyzer.model import Analysis, Finding
from tdiag.analyzer.suggestions import apply_patch, logging_call, scalar_item
from tdiag.analyzer.suggestions.helpers import lightning_hook
from tdiag.analyzer.suggestions.helpers.context import NoPatch, SuggestionContext
from tdiag.analyzer.suggestions.helpers.syntax import SourceTree

MODULE = textwrap.dedent("""\
    import lightning as L
    import torch


    class Classifier(L.LightningModule):
        def __init__(self):
            super().__init__()
            self.net = torch.nn.Linear(32, 4)
            self.losses = []

        def training_step(self, batch, batch_idx):
            x, y = batch
            loss = torch.nn.functional.cross_entropy(self.net(x), y)
            self.losses.append(loss.item())
            if batch_idx % 8 == 0:
                print(f"batch {batch_idx} loss {self.losses[-1]:.4f}")
            return loss

        def on_train_batch_end(self, outputs, batch, batch_idx):
            \"\"\"Lightning calls this after the optimizer step.\"\"\"
            self.log_count = batch_idx

        def configure_optimizers(self):
            return torch.optim.AdamW(self.parameters(), lr=1e-3)
""")

IN_HOOK = textwrap.dedent("""\
    import lightning as L
    import torch


    class Classifier(L.LightningModule):
        def __init__(self):
            super().__init__()
            self.net = torch.nn.Linear(32, 4)
            self.losses = []

        def training_step(self, batch, batch_idx):
            x, y = batch
            loss = torch.nn.functional.cross_entropy(self.net(x), y)
            return loss

        def on_train_batch_end(self, outputs, batch, batch_idx):
            \"\"\"Lightning calls this after the optimizer step.\"\"\"
            loss = outputs["loss"]
            self.losses.append(loss.item())
            if batch_idx % 8 == 0:
                print(f"batch {batch_idx} loss {self.losses[-1]:.4f}")
            self.log_count = batch_idx

        def configure_optimizers(self):
            return torch.optim.AdamW(self.parameters(), lr=1e-3)
""")


def _finding(code: str, line: int) -> Finding:
    return Finding(code=code, name="x", severity="warning", message="m", fix="f", path="model.py", line=line,
                   function="training_step")


def _ctx(text: str) -> SuggestionContext:
    return SuggestionContext(Analysis(sources={"model.py": text}))


def _build(text: str, line: int):
    tree = SourceTree.parse("model.py", text)
    return lightning_hook.build(tree, tree.statement_at(cst.SimpleStatementLine, line))


def test_the_item_the_list_and_the_print_move_first_into_the_existing_hook():
    suggestion = scalar_item.suggest(_finding("BRK002", 14), _ctx(MODULE))
    assert suggestion.title == ("Read `loss` in on_train_batch_end: move lines 14-16 of `training_step` into "
                                "Lightning's hook, which runs uncompiled after each step")
    assert apply_patch(MODULE, suggestion.patch) == IN_HOOK
    # the print's finding gets the identical patch, so `tdiag fix` applies it once for both
    assert logging_call.suggest(_finding("BRK004", 16), _ctx(MODULE)).patch == suggestion.patch
    assert [c.title for c in suggestion.candidates] == ["Set torch._dynamo.config.capture_scalar_outputs = True"]


def test_a_module_without_the_hook_gets_one_after_training_step_with_lightnings_arguments():
    text = MODULE.replace('''    def on_train_batch_end(self, outputs, batch, batch_idx):
        """Lightning calls this after the optimizer step."""
        self.log_count = batch_idx

''', "").replace("def training_step(self, batch, batch_idx):", "def training_step(self, batch, i):").replace(
        "batch_idx % 8", "i % 8").replace("batch {batch_idx}", "batch {i}")
    new = apply_patch(text, _build(text, 14).patch)
    assert "        loss = torch.nn.functional.cross_entropy(self.net(x), y)\n        return loss\n\n" in new
    assert new.split("return loss\n", 1)[1] == textwrap.indent(textwrap.dedent("""\

        def on_train_batch_end(self, outputs, batch, batch_idx):
            loss = outputs["loss"]
            i = batch_idx
            self.losses.append(loss.item())
            if i % 8 == 0:
                print(f"batch {i} loss {self.losses[-1]:.4f}")

        def configure_optimizers(self):
            return torch.optim.AdamW(self.parameters(), lr=1e-3)
    """), "    ", lambda line: line.strip() != "")


@pytest.mark.parametrize("change, reason", [
    # manual optimization: Lightning's `outputs` is what the step returned, not {"loss": ...}
    (("self.losses = []", "self.losses = []\n        self.automatic_optimization = False"), "optimizes manually"),
    # with gradient accumulation `outputs["loss"]` is the loss divided by it: the print would change
    (("import torch\n", "import torch\n\nTRAINER_ARGS = dict(accumulate_grad_batches=4)\n"), "accumulate_grad_batches"),
    # the print reads a name neither the step nor the hook binds (a step's own value would travel in the dict)
    (("loss {self.losses[-1]:.4f}", "loss {self.losses[-1]:.4f} {shape}"), "read `shape`, which neither"),
    # a step local named `loss` that is not the returned tensor cannot travel under the returned loss's key
    (("        self.losses.append(loss.item())\n        if batch_idx % 8 == 0:\n"
      '            print(f"batch {batch_idx} loss {self.losses[-1]:.4f}")\n        return loss\n',
      "        total = loss * 2\n        self.losses.append(loss.item())\n        return total\n"),
     "the lines read a `loss` that is not the returned one"),
    # not Lightning's module: nothing calls the hook
    (("class Classifier(L.LightningModule):", "class Classifier(torch.nn.Module):"), "does not subclass Lightning"),
    # the hook already binds a name the moved lines bind
    (("self.log_count = batch_idx", "loss = batch_idx"), "`loss` is already used in on_train_batch_end"),
])
def test_refusals_name_what_the_move_would_change(change, reason):
    text = MODULE.replace(*change)
    assert text != MODULE
    line = next(i for i, t in enumerate(text.splitlines(), 1) if "self.losses.append" in t)
    with pytest.raises(NoPatch, match=reason):
        _build(text, line)


DECISIONS = ["L['batch'][0].size()[0] -> dynamic", "L['batch'][1].size()[0] -> dynamic"]


def test_the_batch_sizes_dynamo_made_dynamic_are_marked_in_a_new_on_train_batch_start():
    # the RCP001 of the ceiling program: Lightning calls training_step (line 11) with 16 rows, then 8 in the last batch
    from tdiag.analyzer.evidence import RecompileEvidence
    from tdiag.analyzer.suggestions import mark_dynamic

    finding = _finding("RCP001", 40)
    finding.evidence = RecompileEvidence(frame="training_step", frame_path="model.py", frame_line=11,
                                         subject="batch[0]", dim=0, automatic_dynamic=DECISIONS)
    suggestion = mark_dynamic.suggest(finding, _ctx(MODULE))
    assert suggestion.title == ("Mark the batch's sizes dynamic in on_train_batch_start: `batch[0]` dim 0, "
                                "`batch[1]` dim 0")
    assert suggestion.fix.startswith("torch._dynamo.mark_dynamic(batch[0], 0); torch._dynamo.mark_dynamic(batch[1], 0)"
                                     " in on_train_batch_start")
    new = apply_patch(MODULE, suggestion.patch)
    assert new.split("        return loss\n", 1)[1].startswith(
        "\n"
        "    def on_train_batch_start(self, batch, batch_idx):\n"
        "        torch._dynamo.mark_dynamic(batch[0], 0)\n"
        "        torch._dynamo.mark_dynamic(batch[1], 0)\n"
        "\n"
        "    def on_train_batch_end(self, outputs, batch, batch_idx):\n")


def test_an_existing_on_train_batch_start_gets_the_marks_first_under_its_own_argument_name():
    text = MODULE.replace("    def on_train_batch_end(", "    def on_train_batch_start(self, b, i):\n"
                          "        self.started = i\n\n    def on_train_batch_end(")
    new = apply_patch(text, lightning_hook.mark_batch_dynamic(SourceTree.parse("model.py", text), 11, DECISIONS).patch)
    assert ("    def on_train_batch_start(self, b, i):\n        torch._dynamo.mark_dynamic(b[0], 0)\n"
            "        torch._dynamo.mark_dynamic(b[1], 0)\n        self.started = i\n") in new


def test_marks_are_refused_where_the_hook_cannot_see_the_tensors():
    tree = SourceTree.parse("model.py", MODULE)
    # a size of something else than the batch (an attribute the step reads)
    with pytest.raises(NoPatch, match="no size of `batch` dynamic"):
        lightning_hook.mark_batch_dynamic(tree, 11, ["L['self'].buffer.size()[0] -> dynamic"])
    # a hook that rebinds the batch: marks on its new value never reach training_step
    text = MODULE.replace("    def on_train_batch_end(", "    def on_train_batch_start(self, batch, batch_idx):\n"
                          "        batch = [t.float() for t in batch]\n\n    def on_train_batch_end(")
    with pytest.raises(NoPatch, match="assigns `batch`"):
        lightning_hook.mark_batch_dynamic(SourceTree.parse("model.py", text), 11, DECISIONS)


def test_lightnings_self_log_moves_with_the_lines_and_answers_the_crash_it_causes():
    # self.log is Lightning's logging, which on_train_batch_end takes as training_step does
    text = MODULE.replace('''        self.losses.append(loss.item())
        if batch_idx % 8 == 0:
            print(f"batch {batch_idx} loss {self.losses[-1]:.4f}")
''', '''        self.log("train_loss", loss, prog_bar=True)
''')
    new = apply_patch(text, _build(text, 14).patch)
    assert ('        """Lightning calls this after the optimizer step."""\n        loss = outputs["loss"]\n'
            '        self.log("train_loss", loss, prog_bar=True)\n        self.log_count = batch_idx\n') in new
    # another method of self is not logging: it may touch the module's state the step still needs
    with pytest.raises(NoPatch, match="calls `self.record`"):
        _build(text.replace("self.log(", "self.record("), 14)


def test_values_of_the_step_the_lines_log_travel_to_the_hook_in_the_returned_dict():
    # the common step: an accuracy computed on the device and logged beside the loss
    text = MODULE.replace('''        self.losses.append(loss.item())
        if batch_idx % 8 == 0:
            print(f"batch {batch_idx} loss {self.losses[-1]:.4f}")
        return loss
''', '''        acc = (self.net(x).argmax(1) == y).float().mean()
        self.log("train_acc", acc)
        self.log("train_loss", loss)
        return loss
''')
    suggestion = _build(text, 15)
    assert suggestion.title.endswith("which runs uncompiled after each step, returning `acc` beside the loss")
    new = apply_patch(text, suggestion.patch)
    assert ('        acc = (self.net(x).argmax(1) == y).float().mean()\n'
            '        return {"loss": loss, "acc": acc}\n') in new
    assert ('        loss = outputs["loss"]\n        acc = outputs["acc"]\n        self.log("train_acc", acc)\n'
            '        self.log("train_loss", loss)\n') in new
    # a name the step does not bind cannot travel
    with pytest.raises(NoPatch, match="read `undefined_name`, which neither training_step nor"):
        _build(text.replace('self.log("train_acc", acc)', 'self.log("train_acc", undefined_name)'), 15)


def test_torch_2_15s_break_at_self_log_gets_the_hook_move_from_the_catalogue():
    """On torch 2.15.0 (lightning 2.6.6) the same program runs, breaking the graph at each `self.log` (Lightning's
    result collection is `torch.compiler.disable`d) and recompiling `log` per metric name. The finding's evidence is
    torch's, as that run recorded it (its reason, the library frame); the patch is the hook move with the metric
    carried in the returned dict. Verified by `tdiag fix --verify` under torch 2.15.0 on 2026-12-05: 5 graphs -> 1,
    6 breaks -> 0, 3 recompiles -> 0, stdout identical (CI's torch 2.13 stops at the line instead:
    tests/fix/test_new_patches.py)."""
    from pathlib import Path

    from tdiag.analyzer.evidence import BreakEvidence
    from tdiag.analyzer.model import Frame
    from tdiag.analyzer.suggestions import library_fix

    program = Path(__file__).parent / "programs" / "lightning_log.py"
    text = program.read_text()
    line = next(i for i, t in enumerate(text.splitlines(), 1) if 'self.log("train_mae"' in t)
    library = Frame("<site-packages>/lightning/pytorch/core/module.py", 531, "log", "results.log(", False)
    finding = Finding(code="BRK005", name="untraceable-call", severity="warning", message="graph break",
                      fix="f", path="lightning_log.py", line=line, function="training_step", library_frame=library,
                      evidence=BreakEvidence(
                          reason="Skip inlining `torch.compiler.disable()`d function",
                          explanation="Skip inlining function <function _ResultCollection.log at 0x7f0bc10f77e0> "
                                      "since it was wrapped with `torch.compiler.disable` (reason: None)",
                          user_stack=[Frame("lightning_log.py", line, "training_step", 'self.log("train_mae", mae)',
                                            True), library]))
    ctx = SuggestionContext(Analysis(sources={"lightning_log.py": text}))
    suggestion = library_fix.suggest(finding, ctx)
    assert "`lightning-log-in-training-step`" in suggestion.why
    new = apply_patch(text, suggestion.patch)
    assert '        mae = (pred - y).abs().mean()\n        return {"loss": loss, "mae": mae}\n' in new
    assert ('    def on_train_batch_end(self, outputs, batch, batch_idx):\n        loss = outputs["loss"]\n'
            '        mae = outputs["mae"]\n        self.log("train_mae", mae)\n        self.log("train_loss", loss)\n'
            ) in new


COMPILED_MODULE = textwrap.dedent("""\
    import lightning as L
    import torch


    class Classifier(L.LightningModule):
        def __init__(self):
            super().__init__()
            self.net = torch.nn.Linear(32, 4)

        def training_step(self, batch, batch_idx):
            x, y = batch
            return torch.nn.functional.cross_entropy(self.net(x), y)

        def configure_optimizers(self):
            return torch.optim.AdamW(self.parameters(), lr=1e-3)


    model = torch.compile(Classifier(), fullgraph=True)
    L.Trainer(max_epochs=1).fit(model, loader)
""")


def test_reduce_overhead_on_a_lightning_module_marks_each_step_in_on_train_batch_start():
    """The expert's version (benchmarks/ceiling_programs/lightning_train_expert.py): the module's compile under
    mode="reduce-overhead" and torch.compiler.cudagraph_mark_step_begin() first thing before each batch, since
    Lightning, not a line of the user's, makes the compiled call."""
    from tdiag.analyzer.suggestions.helpers import compile_mode

    suggestion = compile_mode.build(_ctx(COMPILED_MODULE), "model.py", "training_step", 10)
    assert "on_train_batch_start" in suggestion.title
    new = apply_patch(COMPILED_MODULE, suggestion.patch)
    assert new == COMPILED_MODULE.replace(
        "        return torch.nn.functional.cross_entropy(self.net(x), y)\n",
        "        return torch.nn.functional.cross_entropy(self.net(x), y)\n\n"
        "    def on_train_batch_start(self, batch, batch_idx):\n"
        "        torch.compiler.cudagraph_mark_step_begin()\n",
    ).replace("torch.compile(Classifier(), fullgraph=True)",
              'torch.compile(Classifier(), fullgraph=True, mode="reduce-overhead")')
    compile(new, "model.py", "exec")


def test_reduce_overhead_adds_the_mark_to_an_existing_start_hook_once():
    from tdiag.analyzer.suggestions.helpers import compile_mode

    with_hook = COMPILED_MODULE.replace("    def configure_optimizers(self):", (
        "    def on_train_batch_start(self, batch, batch_idx):\n"
        "        torch._dynamo.mark_dynamic(batch[0], 0)\n\n"
        "    def configure_optimizers(self):"))
    new = apply_patch(with_hook, compile_mode.build(_ctx(with_hook), "model.py", "training_step", 10).patch)
    assert ("    def on_train_batch_start(self, batch, batch_idx):\n"
            "        torch.compiler.cudagraph_mark_step_begin()\n"
            "        torch._dynamo.mark_dynamic(batch[0], 0)\n") in new
    marked = with_hook.replace("        torch._dynamo.mark_dynamic(batch[0], 0)\n",
                               "        torch._dynamo.mark_dynamic(batch[0], 0)\n"
                               "        torch.compiler.cudagraph_mark_step_begin()\n")
    again = apply_patch(marked, compile_mode.build(_ctx(marked), "model.py", "training_step", 10).patch)
    assert again.count("cudagraph_mark_step_begin") == 1 and 'mode="reduce-overhead"' in again


def test_reduce_overhead_on_a_plain_module_adds_no_hook():
    from tdiag.analyzer.suggestions.helpers import compile_mode

    plain = COMPILED_MODULE.replace("class Classifier(L.LightningModule):", "class Classifier(torch.nn.Module):")
    new = apply_patch(plain, compile_mode.build(_ctx(plain), "model.py", "training_step", 10).patch)
    assert "on_train_batch_start" not in new and 'mode="reduce-overhead"' in new
