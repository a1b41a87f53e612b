"""`tdiag rule`: documentation per rule, listing, unknown codes."""

from __future__ import annotations

from lint_helpers import tdiag
from tdiag.analyzer.rules import all_rules


def test_rule_doc_is_plain_text_when_piped():
    proc = tdiag("rule", "brk001")
    assert proc.returncode == 0
    assert proc.stdout.startswith("# BRK001 (data-dependent-branch)")
    for section in ("## What it does", "## Why is this bad?", "## Example", "## Use instead"):
        assert section in proc.stdout
    assert "\x1b[" not in proc.stdout


def test_rule_by_name():
    assert tdiag("rule", "tensor-item").stdout.startswith("# BRK002")


def test_all_lists_every_code():
    proc = tdiag("rule", "--all")
    assert proc.returncode == 0
    listed = [line.split()[0] for line in proc.stdout.splitlines()]
    assert listed == [r.code for r in all_rules()]


def test_unknown_rule_is_exit_2():
    proc = tdiag("rule", "ZZZ999")
    assert proc.returncode == 2 and "ZZZ999" in proc.stderr


def test_rich_markdown_on_a_terminal(monkeypatch, capsys):
    import sys

    from tdiag.commands.rule import _print_doc

    monkeypatch.setattr(sys.stdout, "isatty", lambda: True, raising=False)
    _print_doc(all_rules()[0])
    out = capsys.readouterr().out
    assert "What it does" in out and "## What it does" not in out  # rendered, not raw Markdown
