"""Training steps of shapes the corpora did not have, each recorded for real under `tdiag run` (aot_eager) and judged
against torch's own account of a plain run (its graph-break and recompile logs, its exit code):

- backward_in_step.py: `loss.backward()` inside the compiled step (torch: "Unsupported Tensor.backward() call"). The
  fix moves it after the call, on the loss the step returns; the patched program, run plainly, has no graph break and
  prints the same losses.
- gradient_penalty.py: a WGAN-GP critic loss takes `torch.autograd.grad(..., create_graph=True)` inside the compiled
  function and `backward()` differentiates it again; AOTAutograd stops the program ("does not currently support
  double backward"). The finding names the function taking the gradient; the patch runs it eagerly and the program
  then runs to its end.
- rotary_cache.py: a rotary-embedding cache grown inside the compiled forward recompiles on every longer sequence.
  The findings speak the user's names (`rope.max_seq_len_cached`, not Dynamo's `self._modules['rope']...` or torch's
  guard comments), and the advice is to keep the value constant, since it decides a branch: a tensor would not do.
- generator_noise.py, seed_in_step.py, timed_step.py: the advice follows from what torch reports about the call: an
  argument Dynamo cannot put in a graph (its type, from torch's debug context), a call made for its effect (nothing
  to pass in), a clock read (time the call from outside).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from tdiag.analyzer import build
from tdiag.analyzer.suggestions import apply_patch
from tdiag_testing import plain_env, plain_run

PROGRAMS = Path(__file__).parent / "step_shapes"
DYNAMO_NAMES = ("._modules[", ".__dict__[", "._buffers[", "._parameters[", "G['", "L['", "___", "  # ")


def _record(tmp_path: Path, name: str, exit_code: int = 0):
    shutil.copy(PROGRAMS / name, tmp_path / name)
    proc = subprocess.run([sys.executable, "-m", "tdiag", "run", "--no-tui", "-q", "-o", "rec", name], cwd=tmp_path,
                          env=plain_env(), capture_output=True, text=True, timeout=300)
    assert proc.returncode == exit_code, proc.stderr[-3000:]  # the program's own exit code
    return (tmp_path / name).read_text(), build(tmp_path / "rec"), proc


def _line(text: str, code: str) -> int:
    """The 1-based number of the one line whose stripped text is ``code``."""
    [number] = [i for i, line in enumerate(text.splitlines(), start=1) if line.strip() == code]
    return number


def _patched(tmp_path: Path, name: str, text: str, patch: str) -> Path:
    script = tmp_path / "patched" / name
    script.parent.mkdir()
    script.write_text(apply_patch(text, patch))
    return script


def test_backward_inside_the_step_moves_after_the_call_and_the_break_goes(tmp_path):
    text, analysis, _ = _record(tmp_path, "backward_in_step.py")
    backward, call = _line(text, "loss.backward()"), _line(text, "loss = train_step(x, y)")
    [finding] = [f for f in analysis.findings if f.family == "BRK"]
    assert (finding.code, finding.line) == ("BRK005", backward)
    assert "`.backward()` inside the compiled function" in finding.message
    assert "call `.backward()` on it right after the compiled call" in finding.fix
    suggestion = finding.suggestion
    assert suggestion.title == f"Call `loss.backward()` after the call: move line {backward} of `train_step` after " \
                               f"its call (line {call})"
    script = _patched(tmp_path, "backward_in_step.py", text, suggestion.patch)
    lines = script.read_text().splitlines()
    assert lines[call - 2:call] == ["    loss = train_step(x, y)", "    loss.backward()"]  # one line up: it left the step
    assert "    loss.backward()" not in lines[:call - 2]

    before = plain_run(tmp_path / "backward_in_step.py", TORCH_LOGS="graph_breaks")
    after = plain_run(script, TORCH_LOGS="graph_breaks")
    assert before.returncode == after.returncode == 0, after.stderr[-2000:]
    assert "Unsupported Tensor.backward() call" in before.stderr  # torch's account of the program as written
    assert "Graph Break Reason" not in after.stderr  # and of the patched one: no break left
    assert after.stdout == before.stdout and after.stdout.count("loss") == 6  # the same training


def test_a_double_backward_crash_names_the_gradient_and_the_patch_runs_it_eagerly(tmp_path):
    text, analysis, proc = _record(tmp_path, "gradient_penalty.py", exit_code=1)
    grad, define = _line(text, "grad = torch.autograd.grad(outputs=score, inputs=mixed, grad_outputs=torch.ones_like(score),"), \
        _line(text, "def gradient_penalty(critic, real, fake):")
    first = analysis.findings[0]
    assert (first.code, first.line) == ("CRS009", _line(text, "loss.backward()"))
    assert f"`torch.autograd.grad` at gradient_penalty.py:{grad} in gradient_penalty" in first.message
    assert "run `gradient_penalty` eagerly: decorate it with @torch.compiler.disable" in first.fix
    assert [f.code for f in analysis.findings].count("CRS099") == 0  # one finding for the crash
    suggestion = first.suggestion
    assert suggestion.title == f"Run gradient_penalty eagerly: @torch.compiler.disable (gradient_penalty.py:{define})"
    script = _patched(tmp_path, "gradient_penalty.py", text, suggestion.patch)
    assert script.read_text().splitlines()[define - 1:define + 1] == ["@torch.compiler.disable", text.splitlines()[define - 1]]

    before, after = plain_run(tmp_path / "gradient_penalty.py"), plain_run(script)
    assert before.returncode == 1 and "does not currently support double backward" in before.stderr  # torch's account
    assert proc.stdout == before.stdout  # tdiag left the program's output alone
    assert after.returncode == 0, after.stderr[-2000:]
    assert [line.split()[:2] for line in after.stdout.splitlines()] == [["step", str(i)] for i in range(6)]


@pytest.fixture(scope="module")
def rotary(tmp_path_factory):
    folder = tmp_path_factory.mktemp("rotary")
    return (folder, *_record(folder, "rotary_cache.py")[:2])


@pytest.mark.parametrize("code", ["RCP001", "RCP002"])
def test_a_growing_module_cache_is_named_as_the_user_names_it(rotary, code):
    folder, text, analysis = rotary
    torch_log = plain_run(folder / "rotary_cache.py", TORCH_LOGS="recompiles").stderr
    assert torch_log.count("max_seq_len_cached ==") >= 4  # torch: each longer sequence fails the cache-length guard
    [finding] = [f for f in analysis.findings if f.code == code]
    for dynamo_name in DYNAMO_NAMES:
        assert dynamo_name not in finding.message and dynamo_name not in finding.fix, (dynamo_name, finding.message)
    assert "rope.cos_cached.size()[0] -> dynamic" in finding.message  # Dynamo's decision, on the user's attribute
    if code == "RCP002":
        assert "rope.max_seq_len_cached changed" in finding.message
        assert finding.fix.startswith(f"self.rope.max_seq_len_cached decides `if seq_len > self.max_seq_len_cached:` "
                                      f"(rotary_cache.py:{_line(text, 'if seq_len > self.max_seq_len_cached:')})")
        assert "keep it constant across calls" in finding.fix and "pass rope.max_seq_len_cached as a tensor" not in finding.fix


ADVICE = [
    # program, torch's break reason (its log of a plain run), the user's line, what the finding must say
    ("generator_noise.py", "Failed to convert args/kwargs to proxy", "return x + 0.1 * torch.randn(x.shape, generator=g)",
     "Dynamo cannot put a `Generator` object into a graph: make this call before the compiled function"),
    ("seed_in_step.py", "Attempted to call function marked as skipped", "torch.manual_seed(i)",
     "before the compiled function (a statement of its own: it is called for its effect, nothing to pass in)"),
    ("timed_step.py", "Attempted to call function marked as skipped", "t0 = time.perf_counter()",
     "read the clock outside the compiled function: time the call from where you make it"),
]


@pytest.mark.parametrize(("name", "torch_reason", "code", "advice"), ADVICE, ids=[a[0] for a in ADVICE])
def test_the_advice_follows_from_what_torch_reports_of_the_call(tmp_path, name, torch_reason, code, advice):
    text, analysis, _ = _record(tmp_path, name)
    assert torch_reason in plain_run(tmp_path / name, TORCH_LOGS="graph_breaks").stderr  # torch's own account
    [finding] = [f for f in analysis.findings if f.family == "BRK" and f.line == _line(text, code)]
    assert advice in finding.fix, finding.fix
    assert "see the graph-break page" not in finding.fix and "pass its result in;" not in finding.fix


def test_a_counter_kept_on_the_module_is_named_with_torchs_hint_and_its_patch_stops_the_recompiles(tmp_path):
    """step_counter.py: `self.calls += 1` in a compiled forward. torch compiles the integer attribute in as a constant:
    a recompile per call until the limit, then eager. The findings name `self.calls` and where it changes (not "?",
    the frame of the compile that hit the limit, which torch's metrics leave unnamed), the limit's fix points at the
    cause, and the patch (torch's own hint) leaves one recompile in torch's log of a plain run."""
    text, analysis, _ = _record(tmp_path, "step_counter.py")
    torch_log = plain_run(tmp_path / "step_counter.py", TORCH_LOGS="recompiles").stderr
    assert torch_log.count("Recompiling function forward") == 8 and "allow_unspec_int_on_nn_module" in torch_log
    limit = next(f for f in analysis.findings if f.code == "RCP005")
    # the limit's fix is the cause's: the catalogue's words for a module's int attribute, never the guard's text
    assert limit.fix.startswith("`self.calls` is an integer attribute of the module") and "not the limit" not in limit.fix
    assert "allow_unspec_int_on_nn_module = True" in limit.fix
    [scalar] = [f for f in analysis.findings if f.code == "RCP002"]
    assert "recompiled: Python value self.calls changed (compiled for 0)" in scalar.message
    assert "also: ?" not in scalar.message and "?" not in scalar.message
    assert scalar.fix.startswith(f"`self.calls` is an integer attribute of the module (at step_counter.py:"
                                 f"{_line(text, 'self.calls += 1')}: `self.calls += 1`)")
    assert "allow_unspec_int_on_nn_module = True" in scalar.fix and "pass calls as a tensor" not in scalar.fix

    script = _patched(tmp_path, "step_counter.py", text, scalar.suggestion.patch)
    before, after = plain_run(tmp_path / "step_counter.py"), plain_run(script, TORCH_LOGS="recompiles")
    assert after.returncode == 0 and after.stderr.count("Recompiling function forward") == 1, after.stderr[-2000:]
    assert after.stdout == before.stdout


MASKED = [
    # program, the selection's line, the line the patch writes in its place
    ("masked_ce.py", "return F.cross_entropy(logits[active], labels[active])",
     "return F.cross_entropy(logits.flatten(0, -2), labels.masked_fill(~active, -100).flatten(), ignore_index=-100)"),
    ("masked_mean.py", "return err[observed].mean()",
     "return torch.where(observed, err, 0).sum() / observed.expand_as(err).sum()"),
]


@pytest.mark.parametrize(("name", "code", "weighed"), MASKED, ids=[m[0] for m in MASKED])
def test_a_selection_by_mask_reduced_at_once_is_weighed_by_the_mask_and_the_break_goes(tmp_path, name, code, weighed):
    """A padding mask's cross-entropy and a missing-value mask's mean: torch breaks at `x[mask]` (aten.nonzero, a
    data-dependent size). The patch keeps every shape static; torch's log of the patched program, run plainly, has no
    break and no recompile, and the program prints the same losses (to the digits it prints)."""
    text, analysis, _ = _record(tmp_path, name)
    [finding] = [f for f in analysis.findings if f.family == "BRK"]
    assert (finding.code, finding.line) == ("BRK007", _line(text, code))
    assert "boolean-mask selection" in finding.message and weighed.removeprefix("return ") in finding.fix
    script = _patched(tmp_path, name, text, finding.suggestion.patch)
    assert script.read_text().splitlines()[finding.line - 1].strip() == weighed
    assert "capture_dynamic_output_shape_ops" in finding.suggestion.candidates[0].patch  # torch's hint, next

    before = plain_run(tmp_path / name, TORCH_LOGS="graph_breaks,recompiles")
    after = plain_run(script, TORCH_LOGS="graph_breaks,recompiles")
    assert "Dynamic shape operator" in before.stderr  # torch's account of the program as written
    assert after.returncode == 0 and "Graph Break Reason" not in after.stderr and "Recompiling" not in after.stderr
    assert after.stdout == before.stdout and after.stdout.count("loss") == 4


def test_a_selection_kept_in_a_variable_gets_torchs_hint_as_its_patch(tmp_path):
    text, analysis, _ = _record(tmp_path, "masked_two_lines.py")
    findings = [f for f in analysis.findings if f.family == "BRK"]
    assert sorted((f.code, f.line) for f in findings) == [("BRK007", _line(text, "valid = logits[mask]")),
                                                    ("BRK007", _line(text, "return nn.functional.cross_entropy(valid, target[mask])"))]
    for f in findings:
        assert "capture_dynamic_output_shape_ops = True" in f.suggestion.patch
        assert "weigh by the mask instead of selecting" in f.suggestion.alternatives[0]


def test_a_whole_step_compiled_moves_its_update_after_the_call_with_the_backward(tmp_path):
    """full_step.py compiles forward, backward, clipping, the optimizer's and the scheduler's step: torch breaks at
    the backward and at each skipped torch.optim call. The backward's patch takes the update with it (the lines after
    the backward, in order, after the call); each optimizer break says the update belongs after the call (never
    "before the compiled function"); torch's log of the patched program, run plainly, has no break."""
    text, analysis, _ = _record(tmp_path, "full_step.py")
    backward = next(f for f in analysis.findings if f.code == "BRK005" and f.line == _line(text, "loss.backward()"))
    for code in ("opt.step()", "sched.step()"):
        [update] = [f for f in analysis.findings if f.code == "BRK005" and f.line == _line(text, code)]
        assert update.fix.startswith("call it after the compiled call, with the backward"), update.fix
        assert update.suggestion.title.endswith("after the compiled call, with the backward")
        assert "before the compiled function" not in update.fix and "allow_in_graph" not in str(update.suggestion)
    assert "LR scheduler's wrapper" in next(f for f in analysis.findings if f.line == _line(text, "opt.step()")).message
    script = _patched(tmp_path, "full_step.py", text, backward.suggestion.patch)
    after_call = script.read_text().split("loss = train_step(")[1].splitlines()[1:6]
    assert [line.strip() for line in after_call] == ["loss.backward()", "torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)",
                                                     "opt.step()", "sched.step()", "opt.zero_grad()"]

    before, after = plain_run(tmp_path / "full_step.py", TORCH_LOGS="graph_breaks"), plain_run(script, TORCH_LOGS="graph_breaks")
    assert "Graph Break Reason" in before.stderr and after.returncode == 0
    assert "Graph Break Reason" not in after.stderr, after.stderr[-2000:]
    assert after.stdout == before.stdout and after.stdout.count("loss") == 12


def test_a_string_argument_and_a_dict_key_are_worded_as_what_they_are(tmp_path):
    """multitask_heads.py: a task name picks the head (a string: one graph per value, never a tensor); optional_key.py:
    a batch dict's optional key (torch's `___dict_contains` guard said as the user's `in` test)."""
    text, analysis, _ = _record(tmp_path, "multitask_heads.py")
    assert plain_run(tmp_path / "multitask_heads.py", TORCH_LOGS="recompiles").stderr.count("task == 'task") >= 8
    limit = next(f for f in analysis.findings if f.code == "RCP005")
    scalar = next(f for f in analysis.findings if f.code == "RCP002")
    assert "raise torch._dynamo.config.recompile_limit to their number" in limit.fix and "not the limit" not in limit.fix
    assert scalar.fix.startswith("task is a string: each value compiles its own graph") and "as a tensor" not in scalar.fix.replace("neither a tensor", "")
    assert scalar.suggestion.title.startswith("Let each value of `task` compile once")

    folder = tmp_path / "key"
    folder.mkdir()
    text, analysis, _ = _record(folder, "optional_key.py")
    assert "not ___dict_contains('mask', batch)" in plain_run(folder / "optional_key.py", TORCH_LOGS="recompiles").stderr
    [finding] = [f for f in analysis.findings if f.code == "RCP006"]
    assert finding.message.endswith("guard failed: 'mask' not in batch")
    # two key sets, two graphs: bounded, nothing to fix (blind batch 6's **kwargs formats); a mask of ones would
    # compute as its absence, so passing it always is the alternative the line names
    assert finding.fix.startswith("nothing to fix: the compiled code depends on whether 'mask' is in batch")
    assert finding.by_design and "an attention mask of ones" in finding.fix
    for dynamo_name in DYNAMO_NAMES:
        assert dynamo_name not in finding.message and dynamo_name not in finding.fix
