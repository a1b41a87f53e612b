"""torch's warnings of silent behaviour become findings at the user's line (WRN001, WRN099), on real runs.

The oracle is torch's own warning in the stderr of a plain run of the same program without tdiag: the lines torch
names there are the lines of the findings, and the program's stderr under `tdiag run` shows each warning exactly as
often as the plain run does."""

from __future__ import annotations

import re
import subprocess
import sys
import warnings
from collections import Counter

from tdiag.analyzer import build
from tdiag_testing import PROGRAMS, plain_run

LRU = re.compile(r"Dynamo detected a call to a `functools\.lru_cache`-wrapped function at '([^':]+):(\d+)'")
WARNING_LINE = re.compile(r"^\S.*:\d+: \w*Warning: ")


def line_of(program: str, marker: str) -> int:
    lines = (PROGRAMS / program).read_text().splitlines()
    return next(i for i, text in enumerate(lines, 1) if text.rstrip().endswith(marker))


def warning_lines(stderr: str) -> Counter:
    return Counter(line for line in stderr.splitlines() if WARNING_LINE.match(line))


def test_an_lru_cache_helper_is_a_finding_at_each_cached_call(recorded):
    program = "lru_cache_helper.py"
    plain = plain_run(PROGRAMS / program)
    assert plain.returncode == 0, plain.stderr
    torch_lines = {(path, int(line)) for path, line in LRU.findall(plain.stderr)}
    # torch names the two call lines of the cached helper Dynamo traced, not the eager call of it
    assert torch_lines == {(program, line_of(program, "# CACHED CALL")),
                           (program, line_of(program, "# CACHED CALL IN HELPER"))}

    run_dir, proc = recorded(program)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(plain.stdout)
    found = [f for f in build(run_dir).findings if f.family == "WRN"]
    assert {(f.code, f.path, f.line) for f in found} == {("WRN001", path, line) for path, line in torch_lines}
    for f in found:
        assert f.severity == "warning" and f.occurrences == 1
        assert "cache is not used inside the compiled code" in f.message
        assert "torch's warning: \"Dynamo ignores the cache wrapper and directly traces the wrapped function.\"" \
            in f.message
        assert "`scale_for" in f.fix and "outside the compiled function" in f.fix
        assert f.evidence.torch_message.split("\n", 1)[0] in plain.stderr  # torch's text, as torch printed it
        assert f.library_frame is not None and f.library_frame.path.startswith("<site-packages>/torch/_dynamo/")
        assert f.graph_keys  # the compile it was issued in


def test_the_warning_is_shown_under_tdiag_exactly_as_without_it(recorded):
    program = "lru_cache_helper.py"
    plain = plain_run(PROGRAMS / program)
    _, proc = recorded(program)
    shown = warning_lines(plain.stderr)
    assert len(shown) == 2 and set(shown.values()) == {1}, plain.stderr  # once per call line, by Python's filter
    assert warning_lines(proc.stderr) == shown
    plain_lines = Counter(plain.stderr.splitlines())
    assert Counter(proc.stderr.splitlines()) & plain_lines == plain_lines  # every line of it, as often


def test_module_hooks_and_a_constant_cond_predicate_are_findings_at_their_lines(recorded):
    program = "warned_constructs.py"
    plain = plain_run(PROGRAMS / program)
    assert plain.returncode == 0, plain.stderr
    hooked, constant = line_of(program, "# HOOKED CALL"), line_of(program, "# CONSTANT PRED")
    # torch's own words and places in the plain run: the hook warning at the user's call, the cond one inside torch
    assert re.search(rf"{program}:{hooked}: UserWarning: Using `torch.compile\(module\)` when there are global hooks",
                     plain.stderr), plain.stderr
    assert re.search(r"torch/_dynamo/\S+:\d+: UserWarning: Pred is a Python constant", plain.stderr), plain.stderr

    run_dir, proc = recorded(program)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(plain.stdout)  # the hooks fired as often as without tdiag
    assert warning_lines(proc.stderr) == warning_lines(plain.stderr)
    found = {(f.code, f.line): f for f in build(run_dir).findings if f.family == "WRN"}
    assert set(found) == {("WRN001", hooked), ("WRN001", constant)}
    assert "fire twice" in found["WRN001", hooked].message and "`.compile()` method" in found["WRN001", hooked].fix
    assert "boolean tensor" in found["WRN001", constant].fix


def test_a_clean_program_has_no_warning_finding(recorded):
    plain = plain_run(PROGRAMS / "clean.py")
    assert not warning_lines(plain.stderr), plain.stderr  # torch warns nothing about it
    run_dir, proc = recorded("clean.py")
    assert proc.returncode == 0, proc.stderr
    assert [f.code for f in build(run_dir).findings if f.family == "WRN"] == []


def test_a_warning_without_words_is_an_info_finding_in_torchs_text(tmp_path):
    """A warning of Dynamo's tdiag has no entry for (torch.compile's deprecated `explain(f, *args)` form, issued by
    torch._dynamo.eval_frame at the user's call) is still a finding, info, quoting torch."""
    program = tmp_path / "explain_old_form.py"
    program.write_text("import torch\n\n\ndef f(x):\n    return x + 1\n\n\n"
                       "print(torch._dynamo.explain(f, torch.ones(2)).graph_count)  # OLD FORM\n")
    plain = subprocess.run([sys.executable, str(program)], capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert plain.returncode == 0 and "FutureWarning: explain(f, *args, **kwargs) is deprecated" in plain.stderr
    run = subprocess.run([sys.executable, "-m", "tdiag", "run", "--no-tui", "-o", str(tmp_path / "rec"), program.name],
                         capture_output=True, text=True, timeout=300, cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    (f,) = [f for f in build(tmp_path / "rec").findings if f.family == "WRN"]
    assert (f.code, f.severity, f.path, f.line) == ("WRN099", "info", program.name, 8)
    assert "explain(f, *args, **kwargs) is deprecated" in f.message and "FutureWarning" in f.message


def test_a_python_without_the_hook_says_so_in_the_record(tmp_path, monkeypatch):
    import tdiag
    import torch

    monkeypatch.delattr(warnings, "_showwarnmsg")
    with tdiag.capture(tmp_path / "rec", root=tmp_path) as rec:
        torch.compile(lambda x: x + 1, backend="eager")(torch.ones(2))
    problems = build(rec.path).run.capture_problems
    assert any(p.what.startswith("warnings._showwarnmsg") and "torch's warnings are not recorded" in p.message
               for p in problems), problems
