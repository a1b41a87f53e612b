"""A fault in tdiag costs only what it touches, and every output says so (issue 34).

Each rule, then each suggester, is made to raise in turn (its real module's function replaced inside this test
process: a fault injected into tdiag, on real records of real torch.compile runs). Each time the other rules'
findings survive unchanged, the failed part has none, the console summary, every lint format, the HTML report, the
notebook view, the TUI overview and the JSON say "analysis incomplete: rule CODE failed", and `tdiag lint` and
`tdiag diff` exit 2. Without the change, build() emptied every finding and lint printed "All checks passed".
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from fixtures.analysis_factory import PLOTLY_STUB
from tdiag.analyzer import build, events, rules
from tdiag.analyzer.rules import RuleContext, applicable

from tdiag import cli

POOL = ["branch_and_sizes.py", "item_call.py", "print_call.py", "dtype_change.py", "recompile_limit.py",
        "train_eval_flip.py", "mask_select.py", "lru_cache_helper.py"]  # the last: torch warns (WRN)
# Families no record of this pool can reach on a CPU-only single-process run (FAMILY_INPUTS): CUDA graphs, several
# ranks, Inductor kernels, Inductor's compile caches (the pool compiles with backend="eager"). Their rules are never
# run there, so they cannot fail there either (tests/compile_cache covers the CCH rules on Inductor records).
UNREACHABLE = {"CCH", "CGR", "DIV", "LOW"}


class Boom(RuntimeError):
    """The injected fault."""


def _raise(*args, **kwargs):
    raise Boom("injected fault")


@pytest.fixture(autouse=True)
def tracebacks_in_tmp(tmp_path, monkeypatch):
    """The tracebacks every fault saves (one per analysis: each lint and diff builds its own) stay in the test's
    own folder."""
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))


@pytest.fixture(scope="module")
def pool(recorded, hot_loop_record, torch_bug_record) -> list[Path]:
    records = []
    for program in POOL:
        run_dir, proc = recorded(program)
        assert proc.returncode == 0, proc.stderr[-2000:]
        records.append(run_dir)
    return [*records, torch_bug_record, hot_loop_record]


def _key(f) -> tuple:
    return (f.code, f.path, f.line, f.message, f.fix)


@pytest.fixture(scope="module")
def baselines(pool):
    """record -> (its findings' keys without a fault, the rule codes that run on it)."""
    out = {}
    for record in pool:
        analysis = build(record)
        assert not analysis.run.analysis_problems and analysis.findings, record
        ran = {e.rule.code for e in applicable(RuleContext(analysis, events.load(record)))}
        out[record] = ({_key(f) for f in analysis.findings}, ran, analysis)
    return out


def _record_for(code: str, baselines) -> Path | None:
    """A record where ``code`` runs: one where it has findings when there is one."""
    running = [r for r, (_, ran, _) in baselines.items() if code in ran]
    with_findings = [r for r in running if any(k[0] == code for k in baselines[r][0])]
    return (with_findings or running or [None])[0]


def _outputs(analysis, record: Path) -> dict[str, str]:
    """Every output of an Analysis as text."""
    from rich.console import Console
    from tdiag.reports.console import print_summary
    from tdiag.reports.html.render import render as render_html
    from tdiag.reports.lint import render as render_lint
    from tdiag.reports.lint.options import LintOptions
    from tdiag.reports.notebook.render import to_html
    from tdiag.tui.screens.overview import record_problems

    console = io.StringIO()
    print_summary(analysis, record, console, width=200, force_terminal=False)
    tui = Console(file=io.StringIO(), width=200, record=True)
    tui.print(record_problems(analysis))
    out = {"console": console.getvalue(), "html": render_html(analysis, plotly_bundle=PLOTLY_STUB),
           "notebook": to_html(analysis), "tui": tui.export_text()}
    for fmt in ("full", "concise", "github", "sarif"):
        out[f"lint-{fmt}"] = render_lint(analysis, fmt, LintOptions(record=str(record)))
    return out


def _says_everywhere(analysis, record: Path, text: str, capsys) -> None:
    import html

    # the JSON interface carries it as data (docs/analysis-json.md)
    assert cli.main(["report", str(record), "--format", "json", "--no-code"]) == 0
    report = json.loads(capsys.readouterr().out)
    (problem,) = report["run"]["analysis_problems"]
    assert text.startswith(f"analysis incomplete: {problem['part']} {problem['name']} failed")
    Path(problem["traceback_file"]).unlink()
    for name, output in _outputs(analysis, record).items():
        assert text in (html.unescape(output) if name in ("html", "notebook") else output), f"{name} does not say {text!r}"
    for fmt in ("full", "json", "json-lines", "junit"):
        assert cli.main(["lint", "--format", fmt, str(record)]) == 2, fmt  # never 0 (all-clear) nor 1
        captured = capsys.readouterr()
        assert text in captured.err, fmt
        assert "All checks passed" not in captured.out
    assert cli.main(["diff", str(record), str(record)]) == 2
    assert text in capsys.readouterr().err


def _check_survivors(record: Path, baselines, failed: str) -> object:
    expected, _, _ = baselines[record]
    analysis = build(record)
    got = {_key(f) for f in analysis.findings}
    others = {k for k in expected if k[0] != failed}
    assert others <= got, f"lost: {sorted(others - got)}"
    assert not any(k[0] == failed for k in got), "the failed rule still has findings"
    (problem,) = analysis.run.analysis_problems
    assert (problem.part, problem.name, problem.exception) == ("rule", failed, "Boom")
    saved = Path(problem.traceback_file).read_text()
    assert "Boom: injected fault" in saved and "Traceback (most recent call last)" in saved
    Path(problem.traceback_file).unlink()
    return analysis


def test_the_pool_reaches_every_rule_but_the_unreachable_families(baselines):
    missing = {code for code in rules.registry() if _record_for(code, baselines) is None}
    assert {code.rstrip("0123456789") for code in missing} == UNREACHABLE, sorted(missing)


@pytest.mark.parametrize("code", sorted(rules.rule_modules()))
def test_a_rule_that_raises_loses_only_its_own_findings(code, baselines, monkeypatch, capsys):
    record = _record_for(code, baselines)
    if record is None:
        pytest.skip(f"{code}: its family's input is in no record of the pool ({sorted(UNREACHABLE)})")
    entry = rules.registry()[code]
    # the check itself raises (for claiming rules: the wording of its findings, after the claim)
    monkeypatch.setitem(rules._LOADED, code, rules.Registered(entry.rule, _raise, entry.module))
    analysis = _check_survivors(record, baselines, code)
    _says_everywhere(analysis, record, f"analysis incomplete: rule {code} failed: Boom: injected fault", capsys)


CLAIMING = sorted(code for code, e in rules.registry().items() if e.rule.claims)


@pytest.mark.parametrize("code", CLAIMING)
def test_a_claim_that_raises_loses_only_that_rules_findings(code, baselines, monkeypatch):
    """matches() raises while every claimant competes for the same events: only that rule is out of the claim.
    On a record where the rule owns events (a claim asks a lower-priority rule only about what no rule before it
    took, so elsewhere its matches may never run)."""
    record = _record_for(code, baselines)
    if not any(k[0] == code for k in baselines[record][0]):
        pytest.skip(f"{code} owns no event in the pool's records")
    entry = rules.registry()[code]
    monkeypatch.setattr(entry.module, "matches", _raise)
    _check_survivors(record, baselines, code)  # the others claim its events (what a BRK rule owned goes to BRK099)


def _suggesters(baselines) -> dict[str, Path]:
    """suggester module name -> a record with a finding that uses it."""
    out = {}
    for record, (_, _, analysis) in baselines.items():
        for f in analysis.findings:
            rule = rules.get_rule(f.code)
            out.setdefault((rule.suggester if rule else None) or "generic", record)
    return out


def test_the_pool_reaches_the_suggesters(baselines):
    reached = set(_suggesters(baselines))
    assert {"branch", "mark_dynamic", "scalar_item", "logging_call", "dtype_change", "mode_flip", "scalar_arg",
            "recompile_limit", "crash", "generic", "mask_select"} <= reached, sorted(reached)


@pytest.mark.parametrize("name", ["branch", "mark_dynamic", "scalar_item", "logging_call", "dtype_change", "mode_flip",
                                  "scalar_arg", "recompile_limit", "crash", "generic", "library_fix", "mask_select"])
def test_a_suggester_that_raises_loses_only_its_patches(name, baselines, monkeypatch, capsys):
    import importlib

    module = importlib.import_module(f"tdiag.analyzer.suggestions.{name}")
    monkeypatch.setattr(module, "suggest", _raise)
    record = _suggesters(baselines).get(name, next(iter(baselines)))  # library_fix is asked about every finding
    expected, _, before = baselines[record]
    analysis = build(record)
    # every finding stays, words and all; the failed suggester's own findings keep their rule's fix line (a
    # suggester may word a finding's fix: analyzer/finish.py), so theirs are compared without it
    def words(key):
        return key[:-1] if (rules.get_rule(key[0]).suggester or "generic") == name else key

    assert {words(_key(f)) for f in analysis.findings} == {words(k) for k in expected}
    (problem,) = analysis.run.analysis_problems
    assert (problem.part, problem.name) == ("suggester", name)
    Path(problem.traceback_file).unlink()
    uses = [f for f in analysis.findings if ((rules.get_rule(f.code).suggester or "generic") == name)]
    patched_before = {(f.code, f.line) for f in before.findings if f.suggestion and f.suggestion.patch}
    for f in analysis.findings:
        if f in uses:
            assert f.suggestion.patch is None and f"suggester {name} failed" in (f.suggestion.patch_note or "")
        elif name != "library_fix" and (f.code, f.line) in patched_before:
            assert f.suggestion.patch, f"{f.code} lost its patch though its suggester is {rules.get_rule(f.code).suggester}"
    _says_everywhere(analysis, record, f"analysis incomplete: suggester {name} failed", capsys)
