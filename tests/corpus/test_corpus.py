"""The precision corpus: `tdiag run` on real third-party model code (transformers, x-transformers, torch_geometric,
diffusers, einops) must report exactly what an expert wants flagged (expected.py), on the user's own lines.

Also checks the counts that the expectations rest on against torch's own TORCH_TRACE of the same program, so an
expectation cannot silently drift from what torch did (a newer transformers that stops breaking, say).
"""

from __future__ import annotations

import pytest
from corpus_scoring import PROGRAMS, env, run, score
from expected import EXPECTED, LIBRARY_CAUSES
from tdiag_testing import require_installed

require_installed("transformers", reason="corpus extra not installed: pip install -e '.[corpus]'")
pytestmark = pytest.mark.slow  # two runs of real third-party models per program: scripts/test's bounded second step


@pytest.fixture(scope="module")
def corpus_env(session_env):
    return env(session_env)


def params():
    for program, expect in sorted(EXPECTED.items()):
        marks = [pytest.mark.inductor] if expect.inductor else []
        yield pytest.param(program, marks=marks, id=program.removesuffix(".py"))


def test_every_program_has_expectations():
    assert sorted(p.name for p in PROGRAMS.glob("*.py")) == sorted(EXPECTED)


@pytest.mark.parametrize("program", params())
def test_findings_match_the_expert(program, corpus_env, tmp_path):
    import torch
    from oracle import account

    expect = EXPECTED[program].on(torch.__version__)
    proc = run(program, tmp_path / "run", corpus_env)
    assert proc.returncode == expect.exit_code, proc.stderr[-3000:]
    result, analysis = score(program, tmp_path / "run", expect)

    # the expectations rest on what torch itself did: every break line torch names is one the expert expected
    # (or allowed), and a program expected to recompile did recompile
    torch_says = account(PROGRAMS / program, corpus_env, tmp_path / "trace", timeout=1500)
    assert torch_says.returncode == expect.exit_code, "tdiag's exit code is not plain python's"
    break_lines = {[ln for f, ln in b["lines"] if f == program][-1] for b in torch_says.breaks
                   if any(f == program for f, _ in b["lines"])}
    expected_break_lines = {k.line for k in result.expected | result.allowed if k.family == "BRK"}
    assert break_lines == expected_break_lines, f"torch broke at {sorted(break_lines)}"
    if any(k.family == "RCP" for k in result.expected):
        assert torch_says.recompile_reasons, "the expert expects a recompile, torch did not recompile"
    if torch_says.recompile_reasons:  # every recompile torch made is expected, or allowed as a break's consequence
        assert any(k.family == "RCP" for k in result.expected | result.allowed) or any(
            k.family == "BRK" for k in result.expected), torch_says.recompile_reasons

    assert not (result.misses or result.false_positives), "\n" + result.diff(expect.why)
    from tdiag.analyzer.paths import is_library_display

    # every family on the user's line: a library location is evidence (--show-library-sites), never the anchor
    assert not [(f.code, f.path, f.line) for f in analysis.findings if is_library_display(f.path)]
    from tdiag.analyzer.library_causes import match

    known = {m[0].id for f in analysis.findings if (m := match(f))}
    assert LIBRARY_CAUSES.get(program, set()) <= known, sorted(known)
    assert analysis.summary.graph_breaks == len(torch_says.breaks)
    from outputs_agree import disagreements

    assert not disagreements(tmp_path / "run")  # every output finishes each finding alike (issue 34)
    from internal_names import internal_names
    from tdiag.analyzer import build

    # no output shows a name only Dynamo holds (issue 62)
    assert internal_names(analysis, tmp_path / "run", build(tmp_path / "run", suggestions=False)) == []
