"""Adding a rule is one file: a throwaway rule module dropped beside the others (here through the package path, so
the source tree is untouched) shows up in lint, SARIF, ``tdiag rule``, the TUI and the HTML with nothing else
changed. Its family (ZZZ) is new, so no list of families may be needed either."""

from __future__ import annotations

import json
import sys
import textwrap

import pytest
from fixtures.analysis_factory import PLOTLY_STUB
from tdiag.analyzer import build, rules
from tdiag.reports.html.render import render as render_html

from tdiag import cli

RULE_FILE = '''
"""## What it does
Finds every line where a graph broke (a throwaway rule for the test).

## Why is this bad?
It is not; it proves that a rule is one file.

## Example
```python
print(x)
```

## Use instead
Nothing.
"""

from tdiag.analyzer.rules import Rule

RULE = Rule("ZZZ001", "throwaway-rule", "info", "A rule from one file", cost="compile")


def check(ctx):
    for site in sorted(ctx.break_sites):
        yield RULE.finding(message=f"throwaway: a break at line {site[1]}", fix="none", path=site[0], line=site[1])
'''


@pytest.fixture
def throwaway_rule(tmp_path, monkeypatch):
    folder = tmp_path / "more_rules"
    folder.mkdir()
    (folder / "zzz001_throwaway_rule.py").write_text(textwrap.dedent(RULE_FILE))
    monkeypatch.setattr(rules, "__path__", [*rules.__path__, str(folder)])
    monkeypatch.setattr(rules._registry, "_MODULES", None)  # discovered again, then the old list comes back
    yield
    sys.modules.pop("tdiag.analyzer.rules.zzz001_throwaway_rule", None)


def test_a_rule_from_one_file_shows_everywhere(throwaway_rule, recorded, capsys):
    run_dir, proc = recorded("print_call.py")
    assert proc.returncode == 0, proc.stderr
    record = str(run_dir)

    assert cli.main(["rule", "ZZZ001"]) == 0
    assert "a rule is one file" in capsys.readouterr().out
    assert cli.main(["rule", "--all"]) == 0
    assert "ZZZ001  throwaway-rule" in capsys.readouterr().out

    assert cli.main(["lint", "--select", "ZZZ", "--format", "concise", record]) == 0  # info does not fail the gate
    out = capsys.readouterr().out
    assert "print_call.py:7:1: ZZZ001 throwaway: a break at line 7" in out and "BRK004" not in out

    assert cli.main(["lint", "--format", "sarif", record]) == 1  # print_call.py's own BRK004 is a warning
    sarif = json.loads(capsys.readouterr().out)
    (driver_rule,) = [r for r in sarif["runs"][0]["tool"]["driver"]["rules"] if r["id"] == "ZZZ001"]
    assert driver_rule["defaultConfiguration"]["level"] == "note"
    assert "a rule is one file" in json.dumps(driver_rule)
    assert any(r["ruleId"] == "ZZZ001" for r in sarif["runs"][0]["results"])

    analysis = build(record)
    finding = next(f for f in analysis.findings if f.code == "ZZZ001")
    from tdiag.analyzer.cost import cost_model

    assert cost_model(finding) == "compile"  # how it is costed is declared in its file too (a new family has none)
    with pytest.raises(ValueError, match="cost 'bogus'"):
        rules.Rule("ZZZ002", "bad", "info", "x", cost="bogus")

    html = render_html(analysis, plotly_bundle=PLOTLY_STUB)
    assert f'id="{finding.anchor}"' in html and 'data-family="ZZZ"' in html

    from tdiag.tui import make_app

    async def tui_rows():
        app = make_app(analysis)
        async with app.run_test(size=(160, 48)) as pilot:
            await pilot.press("2")
            return [analysis.findings[i].code for i in app.screen.visible_findings]

    import asyncio

    assert "ZZZ001" in asyncio.run(tui_rows())


CRASH_RULE_FILE = '''
"""## What it does
Claims the crash of a format code torch cannot handle (a throwaway rule for the test).

## Why is this bad?
It is not; it proves that a crash rule is one file.

## Example
```python
f"{x.shape[0]:.1f}"
```

## Use instead
Nothing.
"""

from tdiag.analyzer.rules import Rule

RULE = Rule("CRS090", "throwaway-crash", "error", "A crash rule from one file", claims="crashes", priority=1)
KIND = "throwaway_format"


def matches(crash):
    return "Unknown format code" in crash.message


def describe(crash, ctx):
    crash.detail = "format code"


def message(crash, ctx):
    return f"throwaway: {crash.detail}"


def fix(crash, ctx):
    return "none"
'''


@pytest.fixture
def throwaway_crash_rule(tmp_path, monkeypatch):
    folder = tmp_path / "more_rules"
    folder.mkdir()
    (folder / "crs090_throwaway_crash.py").write_text(textwrap.dedent(CRASH_RULE_FILE))
    monkeypatch.setattr(rules, "__path__", [*rules.__path__, str(folder)])
    monkeypatch.setattr(rules._registry, "_MODULES", None)
    yield
    rules._LOADED.pop("CRS090", None)
    sys.modules.pop("tdiag.analyzer.rules.crs090_throwaway_crash", None)


def test_a_crash_rule_from_one_file_claims_the_crash(throwaway_crash_rule, torch_bug_record):
    """A claiming crash rule is one file too: its matches and priority (1, before CRS008's 65) win the crash, its
    KIND and describe are the crash's, and it is the first finding, with nothing else changed."""
    analysis = build(torch_bug_record)
    first = analysis.findings[0]
    assert (first.code, first.line) == ("CRS090", 9) and first.message == "the program stopped: throwaway: format code"
    assert [f.code for f in analysis.findings if f.family == "CRS"] == ["CRS090"]  # CRS008 no longer owns it
    assert analysis.summary.crash.kind == "throwaway_format" and analysis.summary.crash.detail == "format code"
