"""Unit tests of the suggesters on small sources: which code gets which patch, and which gets none."""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest
from tdiag.analyzer.evidence import DynamicEvidence, RecompileEvidence, RecompileLimitEvidence
from tdiag.analyzer.model import Analysis, Finding, Recompile, Site
from tdiag.analyzer.suggestions import apply_patch, current_suggestion, make_patch, patch_applies, suggest
from tdiag.analyzer.suggestions.helpers.context import SuggestionContext


def _suggest(code: str, source: str, line: int, column: int | None = None, evidence=None, function=None, analysis=None):
    source = textwrap.dedent(source)
    analysis = analysis or Analysis()
    analysis.sources["m.py"] = source
    finding = Finding(code=code, name="x", severity="warning", message="", fix="fix it", path="m.py", line=line,
                      column=column, function=function, evidence=evidence)
    return suggest(finding, SuggestionContext(analysis)), source


def _patched(code: str, source: str, line: int, **kw) -> str:
    suggestion, source = _suggest(code, source, line, **kw)
    assert suggestion.patch, suggestion.patch_note
    patched = apply_patch(source, suggestion.patch)
    assert patched is not None
    compile(patched, "m.py", "exec")  # still valid Python
    return patched


BRANCH = """\
import torch

def f(x):
    y = x * 2
    if y.sum() > 0:
        {then}
    else:
        {other}
    return y
"""


@pytest.mark.parametrize(
    "then, why",
    [
        ("print(y); y = y + 1", "print"),
        ("y = y.add_(1)", "add_"),
        ("y = self.norm(y)", "self.norm"),
        ("y = y + torch.randn_like(y)", "randn_like"),
        ("y = helper(y)", "helper"),
        ("y += 1", "in place"),
        ("return y + 1", "does more than assign names (`return y + 1`)"),
    ],
)
def test_branch_with_side_effects_gets_no_where_patch(then, why):
    suggestion, _ = _suggest("BRK001", BRANCH.format(then=then, other="y = y - 1"), line=5)
    assert suggestion.patch is None
    assert "torch.where" not in suggestion.title and "torch.cond" in suggestion.title
    assert why in suggestion.patch_note
    assert "torch.cond(" in suggestion.why  # the sketch


def test_cond_patch_for_sides_of_several_pure_assignments():
    # Two assignments to one name: no torch.where per name, but a torch.cond of two functions (y passed in).
    patched = _patched("BRK001", BRANCH.format(then="y = y + 1\n        y = y * 2", other="y = y - 1"), line=5)
    assert "    def then_branch(y):\n        y = y + 1\n        y = y * 2\n        return y\n" in patched
    assert "    def else_branch(y):\n        y = y - 1\n        return y\n" in patched
    assert "    y = torch.cond(y.sum() > 0, then_branch, else_branch, (y,))\n" in patched


def test_elif_chain_gets_nested_where_from_either_line():
    source = (
        "import torch\ndef f(x):\n    if x.sum() > 1:\n        y = x * 2\n    elif x.sum() < -1:\n        y = x / 2\n"
        "    else:\n        y = x\n    return y\n"
    )
    head = _patched("BRK001", source, line=3)
    assert "    y = torch.where(x.sum() > 1, x * 2, torch.where(x.sum() < -1, x / 2, x))\n" in head
    assert _patched("BRK001", source, line=5) == head


def test_where_patch_for_pure_assignments():
    patched = _patched("BRK001", BRANCH.format(then="y = torch.relu(y) + 1", other="y = y.abs() - 1"), line=5)
    assert "    y = torch.where(y.sum() > 0, torch.relu(y) + 1, y.abs() - 1)\n" in patched
    assert "if " not in patched


def test_where_without_else_keeps_the_name():
    patched = _patched("BRK001", "import torch\ndef f(y):\n    if y.max() > 1:  # clamp\n        y = y / 2\n    return y\n", line=3)
    assert "    y = torch.where(y.max() > 1, y / 2, y)  # clamp\n" in patched


def test_where_for_several_names_evaluates_the_condition_once():
    source = "import torch\ndef f(a, b):\n    if a.sum() > b.sum():\n        a = a + 1\n        b = b - 1\n    return a, b\n"
    patched = _patched("BRK001", source, line=3)
    assert "take_then = a.sum() > b.sum()" in patched
    assert "a = torch.where(take_then, a + 1, a)" in patched
    assert "b = torch.where(take_then, b - 1, b)" in patched


def test_where_refuses_order_dependent_names():
    source = "import torch\ndef f(a, b):\n    if a.sum() > 0:\n        a = a + 1\n        b = b - 1\n    else:\n        b = a * 2\n    return a, b\n"
    suggestion, _ = _suggest("BRK001", source, line=3)
    # torch.where per name would read the new `a` in `b = a * 2`; torch.cond runs the `else` side as written.
    assert suggestion.patch is not None and "torch.where" not in suggestion.patch
    patched = apply_patch(source, suggestion.patch)
    assert "    def else_branch(a, b):\n        b = a * 2\n        return a, b\n" in patched
    assert "    a, b = torch.cond(a.sum() > 0, then_branch, else_branch, (a, b))\n" in patched


def test_where_for_early_return():
    source = "import torch\ndef helper(t):\n    s = t.sum()\n    if s > 0:\n        return t * 2\n    return t\n"
    patched = _patched("BRK001", source, line=4)
    assert "    return torch.where(s > 0, t * 2, t)\n" in patched and "if s" not in patched


def test_where_uses_the_files_torch_alias_and_adds_no_import():
    source = "import torch as th\ndef f(y):\n    if y.sum() > 0:\n        y = y + 1\n    return y\n"
    patched = _patched("BRK001", source, line=3)
    assert "th.where(" in patched and patched.count("import torch") == 1


def test_item_kept_as_tensor_only_for_tensor_arithmetic():
    source = "import torch\ndef f(x):\n    s = x.max().item()\n    return x / (s + 1.0)\n"
    patched = _patched("BRK002", source, line=3)
    assert "    s = x.max().detach()\n" in patched  # a constant to autograd, as .item() made it


@pytest.mark.parametrize(
    "use", ["return x * 2 if s > 0 else x", "return x.clamp(-s, s)", "return torch.zeros(int(s * 2))", "s = s + 1\n    return x / s"]
)
def test_item_used_as_a_number_gets_capture_scalar_outputs(use):
    source = f"import torch\nimport math\ndef f(x):\n    s = x.max().item()\n    {use}\n"
    patched = _patched("BRK002", source, line=4)
    assert "import torch\ntorch._dynamo.config.capture_scalar_outputs = True\nimport math\n" in patched
    assert ".item()" in patched


def test_print_is_replayed_after_the_graph_not_removed():
    source = "import torch\ndef f(x):\n    if x.shape[0] > 2:\n        print('big', x.sum())\n    return x\n"
    patched = _patched("BRK004", source, line=4)
    assert patched == source.replace("import torch\n", "import torch\ntorch._dynamo.config.reorderable_logging_functions.add(print)\n")


@pytest.mark.parametrize("later", ["y.add_(1)", "y += 1", "y[0] = 0", "helper(y)", "torch.add(y, 1, out=y)"])
def test_no_print_patch_when_the_printed_value_may_change_in_place(later):
    """torch replays the print after the graph with the final value (seen on torch 2.13): no patch may be offered."""
    source = f"import torch\ndef f(x):\n    y = x * 2\n    print(y)\n    {later}\n    return y\n"
    suggestion, _ = _suggest("BRK004", source, line=4)
    assert suggestion.patch is None


def test_print_to_a_file_gets_no_replay_patch():
    suggestion, _ = _suggest("BRK004", "import sys\nimport torch\ndef f(x):\n    print(x, file=sys.stderr)\n    return x\n", line=4)
    assert suggestion.patch is None


def test_print_whose_value_is_used_is_not_removed():
    suggestion, _ = _suggest("BRK004", "def f(x):\n    y = print(x) or x\n    return y\n", line=2)
    assert suggestion.patch is None and "reorderable_logging_functions" in " ".join(suggestion.alternatives)


def _recompile_evidence(subject="x", dim=0, frame="forward", frame_line=5):
    return RecompileEvidence(subject=subject, dim=dim, frame=frame, frame_path="m.py", frame_line=frame_line, expected="4")


MODEL = """\
import torch

class Net(torch.nn.Module):
    def forward(self, x, scale=1):
        return x * scale

compiled = torch.compile(Net())
for n in (4, 8):
    {call}
"""


def test_mark_dynamic_on_a_plain_name_argument():
    patched = _patched("RCP001", MODEL.format(call="out = compiled(inputs[n], scale=2)"), line=9,
                       evidence=_recompile_evidence(frame_line=4))
    assert "    x = inputs[n]\n    torch._dynamo.mark_dynamic(x, 0)\n    out = compiled(x, scale=2)\n" in patched


def test_mark_dynamic_before_the_call_for_a_name():
    patched = _patched("RCP001", MODEL.format(call="batch = torch.ones(n, 3); print(compiled(batch))"), line=9,
                       evidence=_recompile_evidence(frame_line=4))
    # The call shares its line with another statement: the mark goes before the whole line.
    assert "    torch._dynamo.mark_dynamic(batch, 0)\n    batch = torch.ones(n, 3); print(compiled(batch))" in patched


def test_mark_dynamic_fresh_name_when_the_parameter_name_is_taken():
    patched = _patched("RCP001", MODEL.format(call="x = n; out = compiled(torch.ones(x, 3))"), line=9,
                       evidence=_recompile_evidence(frame_line=4))
    assert "x_2 = torch.ones(x, 3)" in patched and "mark_dynamic(x_2, 0)" in patched


def test_mark_dynamic_refuses_a_resume_function_frame():
    suggestion, _ = _suggest("RCP001", MODEL.format(call="out = compiled(torch.ones(n))"), line=9,
                             evidence=_recompile_evidence(subject="h", frame_line=5))
    assert suggestion.patch is None and "graph break" in suggestion.patch_note


def test_dyn001_uses_the_recompile_call_site():
    analysis = Analysis(recompiles=[Recompile("0/1", 0, "forward", "m.py", 4, call_site=Site("m.py", 9))])
    patched = _patched("DYN001", MODEL.format(call="out = compiled(torch.ones(n))"), line=4, function="forward",
                       evidence=DynamicEvidence(decisions=["L['x'].size()[0] -> dynamic"]), analysis=analysis)
    assert "torch._dynamo.mark_dynamic(x, 0)" in patched


def test_scalar_argument_becomes_a_tensor_at_every_call():
    source = "import torch\n@torch.compile\ndef scale(x, k):\n    return x * k + 1\nscale(a, 2)\nscale(a, k=3)\n"
    patched = _patched("RCP002", source, line=4, evidence=RecompileEvidence(subject="k", frame="scale", frame_path="m.py",
                                                                            frame_line=2, expected="2"))
    assert "scale(a, torch.tensor(2))" in patched and "scale(a, k=torch.tensor(3))" in patched


@pytest.mark.parametrize("body, dynamic", [("return x * 2 if k > 1 else x", True), ("return x.view(k, -1)", True),
                                           ("return x * k, range(k)", False)])
def test_scalar_argument_used_as_a_number_stays(body, dynamic):
    """A tensor `k` would not behave like the number there, so it is never wrapped; where `k` is a size or a
    condition, dynamic=True on the compile makes it symbolic instead (a range() bound specialises either way)."""
    source = f"import torch\n@torch.compile\ndef scale(x, k):\n    {body}\nscale(a, 2)\n"
    suggestion, _ = _suggest("RCP002", source, line=4, evidence=RecompileEvidence(
        subject="k", frame="scale", frame_path="m.py", frame_line=2, expected="2"))
    assert "torch.tensor(" not in (suggestion.patch or "")
    if dynamic:
        assert "+@torch.compile(dynamic=True)" in suggestion.patch.splitlines()
    else:
        assert suggestion.patch is None and suggestion.patch_note


def test_recompile_limit_is_loud_and_names_the_cause():
    suggestion, _ = _suggest("RCP005", "x = 1\n", line=1, function="shift", evidence=RecompileLimitEvidence(failures=["mode == 'a'"]))
    assert "RECOMPILE LIMIT" in suggestion.title and "mode == 'a'" in suggestion.why


@pytest.mark.parametrize("code", ["BRK003", "BRK005", "BRK006", "BRK099", "RCP003", "RCP004", "RCP006", "LOW001", "CMP001"])
def test_every_other_rule_gets_a_title_and_no_crash(code):
    suggestion, _ = _suggest(code, "import torch\nimport zlib\ny = zlib.crc32(b'a')\n", line=3)
    assert suggestion.title


def test_unparsable_source_gives_a_note_not_a_crash():
    suggestion, _ = _suggest("BRK001", "def f(:\n", line=1)
    assert suggestion.patch is None and "parse" in suggestion.patch_note


def test_stale_patch_is_dropped_with_a_note():
    suggestion, source = _suggest("BRK001", BRANCH.format(then="y = y + 1", other="y = y - 1"), line=5)
    finding = Finding("BRK001", "x", "warning", "", "", "m.py", 5, suggestion=suggestion)
    assert patch_applies(finding, source)
    assert current_suggestion(finding, source) is suggestion
    changed = source.replace("y = y - 1", "y = y - 2")
    assert not patch_applies(finding, changed)
    shown = current_suggestion(finding, changed)
    assert shown.patch is None and "source changed" in shown.patch_note and shown.title == suggestion.title


def test_apply_patch_follows_moved_lines_and_refuses_changed_ones():
    old = "a\nb\nc\nd\n"
    patch = make_patch("f.py", old, "a\nB\nc\nd\n")
    assert patch.startswith("--- a/f.py\n+++ b/f.py\n")
    assert apply_patch("new\n" + old, patch) == "new\na\nB\nc\nd\n"
    assert apply_patch(old.replace("b", "x"), patch) is None


def test_suggestions_do_not_import_torch():
    code = (
        "import sys, tdiag.analyzer.suggestions as s, tdiag.analyzer.rules as r, importlib\n"
        "[importlib.import_module('tdiag.analyzer.suggestions.' + x.suggester) for x in r.all_rules() if x.suggester]\n"
        "bad = [m for m in ('torch', 'rich', 'textual', 'plotly') if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
