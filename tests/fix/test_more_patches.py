"""Three more patch kinds, each through the loop a user runs (record a real program, `tdiag fix --verify`), and each
one's refusals on small sources.

- CRS008 on a line written directly in the compiled function: the line moves into a new helper decorated with
  @torch.compiler.disable (extract_disabled);
- a break inside a helper that only does host work: @torch.compiler.disable on the helper (disable_helper);
- a recompile on an int argument used as a size: dynamic=True on its torch.compile (compile_dynamic).

The expected counts are torch's own, written by hand from plain runs of each program on torch 2.13
(torch._dynamo.utils.counters: graph_break totals and stats.unique_graphs), as each program's docstring says.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
from tdiag.analyzer.evidence import BreakEvidence, RecompileEvidence
from tdiag.analyzer.model import Analysis, Crash, Finding, Frame, Site
from tdiag.analyzer.suggestions import apply_patch, suggest
from tdiag.analyzer.suggestions.helpers.context import SuggestionContext

from ._project import make_project

PROGRAMS = Path(__file__).parent / "programs"


def _added(patch: str) -> list[str]:
    return [ln for ln in patch.splitlines() if ln.startswith("+") and not ln.startswith("+++")]


# --- through `tdiag fix --verify` --------------------------------------------------------------------------------
def test_inline_torch_bug_line_moves_into_a_disabled_helper(tmp_path, session_env):
    """The plain program stops at the first call (torch's InternalTorchDynamoError at line 11), so the expected
    output is what the program prints eagerly, written here by hand: start, then rows and sum for n = 4 and 6."""
    project = make_project(tmp_path, PROGRAMS / "inline_torch_bug.py", session_env)
    assert project.run_stdout == "start\n"
    rc, data = project.fix_json("--verify", "--repeat", "1")
    (patch,) = data["patches"]
    assert patch["codes"] == ["CRS008"] and "_eager_print" in patch["title"]
    assert _added(patch["patch"]) == ["+@torch.compiler.disable", "+def _eager_print(y):",
                                      '+    print(f"rows {y.shape[0]:.1f}")', "+", "+", "+    _eager_print(y)"]
    (result,) = data["verification"]
    assert rc == 0 and result["ok"] and result["completed"], result["problems"]
    assert result["before"]["exit_code"] == 1 and result["after"]["exit_code"] == 0
    assert "CRS008" in result["gone"]
    # the after run prints everything the program prints without torch.compile
    assert result["stdout_diff"] == ["+rows 4.0", "+sum 8.0", "+rows 6.0", "+sum 12.0"]
    # step still compiles: a graph before the helper's call and one after it, one break at the call
    assert result["after"]["graphs"] == 2 and result["after"]["graph_breaks"] == 1


def test_host_work_helper_is_disabled(tmp_path, session_env):
    """helper_writes.py: 3 breaks and 2 graphs in a plain run; with log_progress disabled 1 break, 2 graphs."""
    project = make_project(tmp_path, PROGRAMS / "helper_writes.py", session_env)
    rc, data = project.fix_json("--verify", "--repeat", "1")
    (patch,) = data["patches"]
    assert patch["codes"] == ["BRK005"]
    assert _added(patch["patch"]) == ["+@torch.compiler.disable"]
    assert "\n+@torch.compiler.disable\n def log_progress(step, y):" in patch["patch"]
    (result,) = data["verification"]
    assert rc == 0 and result["ok"], result["problems"]
    assert result["before"]["graph_breaks"] == 3 and result["after"]["graph_breaks"] == 1
    assert result["before"]["graphs"] == 2 and result["after"]["graphs"] == 2
    assert result["before"]["findings"]["BRK005"] == 3 and "BRK005" not in result["after"]["findings"]
    assert result["stdout_identical"] and result["after"]["exit_code"] == 0


def test_int_size_argument_compiles_with_dynamic_true(tmp_path, session_env):
    """int_size_arg.py: 2 graphs (1 recompile, on n) in a plain run; with dynamic=True 1 graph, no recompile."""
    project = make_project(tmp_path, PROGRAMS / "int_size_arg.py", session_env)
    rc, data = project.fix_json("--verify", "--repeat", "1")
    (patch,) = data["patches"]
    assert patch["codes"] == ["RCP002"] and "dynamic=True" in patch["title"]
    assert _added(patch["patch"]) == ['+tile = torch.compile(tile_rows, backend="eager", dynamic=True)']
    (result,) = data["verification"]
    assert rc == 0 and result["ok"], result["problems"]
    assert result["before"]["recompiles"] == 1 and result["after"]["recompiles"] == 0
    assert result["before"]["graphs"] == 2 and result["after"]["graphs"] == 1
    assert "RCP002" not in result["after"]["findings"]
    assert result["stdout_identical"]


# --- on small sources ---------------------------------------------------------------------------------------------
def _finding(code: str, source: str, line: int, analysis: Analysis, **kw):
    source = textwrap.dedent(source)
    analysis.sources["m.py"] = source
    finding = Finding(code=code, name="x", severity="error", message="", fix="fix it", path="m.py", line=line, **kw)
    return suggest(finding, SuggestionContext(analysis)), source


def _crs008(source: str, line: int, function: str = "step"):
    analysis = Analysis(crashes=[Crash(kind="torch_internal", exception="torch._dynamo.exc.InternalTorchDynamoError",
                                       headline="ValueError", site=Site("m.py", line, function=function),
                                       traced=[Site("m.py", line, function=function)])])
    return _finding("CRS008", source, line, analysis, function=function)


def _applied(suggestion, source: str) -> str:
    assert suggestion.patch, suggestion.patch_note
    patched = apply_patch(source, suggestion.patch)
    compile(patched, "m.py", "exec")
    return patched


STEP = """\
import torch


@torch.compile(dynamic=True)
def step(x, stats):
    y = x * 2
    {line}
    return y + n
"""


def test_extracted_helper_returns_what_is_read_later_and_keeps_attribute_writes():
    suggestion, source = _crs008(STEP.format(line='n = len(f"{y.shape[0]:.1f}"); stats.rows = n'), 7)
    patched = _applied(suggestion, source)
    assert ("@torch.compiler.disable\ndef _step_eager(y, stats):\n"
            '    n = len(f"{y.shape[0]:.1f}"); stats.rows = n\n    return n\n') in patched
    assert "    n = _step_eager(y, stats)\n    return y + n\n" in patched


def test_extracted_helper_returns_a_tuple_for_several_names_and_avoids_taken_names():
    source = STEP.format(line='n, m = y.shape[0], f"{y.shape[0]:.1f}"; _eager_print = m').replace(
        "return y + n", "return y + n, m, _eager_print")
    suggestion, source = _crs008(source, 7)
    patched = _applied(suggestion, source)
    assert "    return n, m, _eager_print\n" in patched and "    n, m, _eager_print = _step_eager(y)\n" in patched


def test_extracted_method_line_goes_before_the_class():
    source = """\
    import torch


    class Net(torch.nn.Module):
        def forward(self, x):
            print(f"rows {x.shape[0]:.1f}", self.training)
            return x
    """
    suggestion, source = _crs008(source, 6, function="Net.forward")
    patched = _applied(suggestion, source)
    assert patched.index("def _eager_print(x, self):") < patched.index("class Net")
    assert "        _eager_print(x, self)\n" in patched


@pytest.mark.parametrize("line, why", [
    ("return y", "a return"),
    ("print((yield y))", "a yield"),
    ("global n; n = 1", "a global statement"),
    ("del stats", "a del"),
    ("print(locals())", "locals()"),
    ("for i in range(2):\n        n = i", "read later"),
])
def test_no_extraction_where_a_helper_would_change_the_meaning(line, why):
    suggestion, _ = _crs008(STEP.format(line=line), 7)
    assert suggestion.patch is None and why in suggestion.patch_note


def test_no_extraction_of_a_break_out_of_the_loop_around_it():
    source = STEP.format(line="for i in range(3):\n        if i:\n            break")
    suggestion, _ = _crs008(source, 9)
    assert suggestion.patch is None and "a break of a loop around it" in suggestion.patch_note


HELPER = """\
import sys
import torch

{decorator}
def log_rows(y):
    sys.stdout.write(f"rows {{y.shape[0]}} mean {{y.mean().item():.2f}}\\n")
    {more}


@torch.compile(backend="eager")
def step(x):
    log_rows(x)
    return x + 1
"""
_STACK = [Frame("m.py", 14, "<module>"), Frame("m.py", 12, "step"), Frame("m.py", 6, "log_rows")]
_PLAIN = "# writes one line"


def _brk005(source: str, stack=_STACK, **kw):
    return _finding("BRK005", source, 6, Analysis(), function="log_rows",
                    evidence=BreakEvidence(reason="Unsupported method call", user_stack=list(stack)), **kw)


def test_host_work_helper_gets_the_decorator():
    suggestion, source = _brk005(HELPER.format(decorator=_PLAIN, more="sys.stdout.flush()"))
    assert "\n# writes one line\n@torch.compiler.disable\ndef log_rows(y):\n" in _applied(suggestion, source)


def test_skipped_host_work_helper_gets_the_decorator():
    source = HELPER.format(decorator=_PLAIN, more="sys.stdout.flush()")
    suggestion, source = _finding("BRK006", source, 6, Analysis(), function="log_rows",
                                  evidence=BreakEvidence(reason="graph break in loop", user_stack=list(_STACK)))
    assert "\n@torch.compiler.disable\ndef log_rows(y):\n" in _applied(suggestion, source)
    assert "stops trying" in suggestion.why


@pytest.mark.parametrize("decorator, more, stack, why", [
    (_PLAIN, "return y.relu()", _STACK, "tensor compute"),
    ("@torch.compiler.disable", "pass", _STACK, "already disabled"),
    (_PLAIN, "pass", _STACK[::2], "the compiled function itself"),
])
def test_no_decorator_on_compute_a_disabled_helper_or_the_compiled_function(decorator, more, stack, why):
    suggestion, _ = _brk005(HELPER.format(decorator=decorator, more=more), stack=stack)
    assert suggestion.patch is None and why in suggestion.patch_note


def test_no_decorator_when_the_break_is_in_library_code():
    library = Frame("lib/x.py", 3, "w", is_user=False)
    suggestion, _ = _brk005(HELPER.format(decorator=_PLAIN, more="pass"), library_frame=library)
    assert suggestion.patch is None


def _rcp002(source: str, frame: str = "tile", frame_line: int = 2, expected: str = "2"):
    evidence = RecompileEvidence(subject="n", frame=frame, frame_path="m.py", frame_line=frame_line, expected=expected)
    return _finding("RCP002", source, frame_line + 1, Analysis(), evidence=evidence)


@pytest.mark.parametrize("compile_line, expected", [
    ("@torch.compile", "@torch.compile(dynamic=True)"),
    ('@torch.compile(backend="eager")', '@torch.compile(backend="eager", dynamic=True)'),
])
def test_dynamic_true_on_the_decorator(compile_line, expected):
    source = f"import torch\n{compile_line}\ndef tile(x, n):\n    return x.repeat(n, 1)\ntile(a, 2)\n"
    suggestion, source = _rcp002(source)
    assert f"\n{expected}\ndef tile(x, n):\n" in _applied(suggestion, source)


def test_dynamic_true_on_the_compiled_module():
    source = textwrap.dedent("""\
        import torch
        class Net(torch.nn.Module):
            def forward(self, x, n):
                return x.view(n, -1)
        net = Net()
        model = torch.compile(
            net,
            backend="eager",
        )
        """)
    suggestion, source = _rcp002(source, frame="forward", frame_line=3)
    assert '    backend="eager",\n    dynamic=True,\n)\n' in _applied(suggestion, source)


@pytest.mark.parametrize("compile_line, body, expected, why", [
    ("@torch.compile(dynamic=False)", "return x.repeat(n, 1)", "2", "already passes dynamic=False"),
    ("@torch.compile", "return [x * i for i in range(n)]", "2", "range() bound"),
    ("@torch.compile", "return x.repeat(int(n), 1)", "2.5", "floats"),
    ("", "return x.repeat(n, 1)", "2", "no torch.compile of tile"),
])
def test_no_dynamic_true_where_it_cannot_help_or_is_set(compile_line, body, expected, why):
    lines = ["import torch", *([compile_line] if compile_line else []), "def tile(x, n):", f"    {body}", "tile(a, 2)"]
    suggestion, _ = _rcp002("\n".join(lines) + "\n", expected=expected)
    assert suggestion.patch is None and why in suggestion.patch_note
