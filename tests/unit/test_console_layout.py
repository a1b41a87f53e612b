"""The end-of-run summary stays readable at any width, in a terminal and in a CI log (issue 16).

Expectations are written by hand from the findings below: every word of every message and fix is printed whole,
no line is wider than the console, a long site keeps its file name and line, and the message gets at least
MIN_MESSAGE_WIDTH columns (beside the site when they fit, below it otherwise).
"""

from __future__ import annotations

import io
import re

import pytest
from tdiag.analyzer.fix_status import label as fix_label
from tdiag.analyzer.model import Analysis, Finding, Summary
from tdiag.reports.console import MIN_MESSAGE_WIDTH, print_summary
from tdiag.reports.site_text import shorten_site

ANSI = re.compile(r"\x1b\[[0-9;]*m")
LONG_PATH = "<site-packages>/transformers/models/gpt2/modeling_gpt2.py"

FINDINGS = [
    Finding(
        code="BRK005", name="untraceable-call", severity="warning", path=LONG_PATH, line=1043, column=17,
        message="graph break: call to a function Dynamo cannot trace (torch._C._get_tracing_state) inside the "
        "attention block, wrapped by the library's forward",
        fix="wrap the call in torch.compiler.disable, or move it out of the compiled region",
        occurrences=12,
    ),
    Finding(
        code="RCP001", name="shape-recompile", severity="warning", path="train.py", line=54,
        message="forward (train.py:34) recompiled: size of x dim 0 changed (expected 16, got 24)",
        fix="torch._dynamo.mark_dynamic(x, 0) before the call, or compile with dynamic=True",
        occurrences=5,
    ),
]


def _analysis(findings: list[Finding]) -> Analysis:
    analysis = Analysis(findings=findings)
    analysis.summary = Summary(graphs=9, graph_breaks=6, break_sites=2, recompiles=6, compile_time_s=2.0)
    return analysis


def _render(width: int, terminal: bool, findings: list[Finding] = FINDINGS) -> list[str]:
    out = io.StringIO()
    print_summary(_analysis(findings), None, out, width=width, force_terminal=terminal)
    text = out.getvalue()
    assert ("\x1b[" in text) == terminal  # the TTY case really is styled, the CI-log case plain
    return ANSI.sub("", text).splitlines()


def _words_in_order(lines: list[str], sentence: str) -> bool:
    """``sentence``'s words appear whole and consecutively in the printed words."""
    printed = " ".join(lines).split()
    words = sentence.split()
    return any(printed[i : i + len(words)] == words for i in range(len(printed) - len(words) + 1))


@pytest.mark.parametrize("terminal", [False, True], ids=["ci-log", "tty"])
@pytest.mark.parametrize("width", [60, 80, 120])
def test_summary_fits_the_width_and_keeps_every_word(width: int, terminal: bool) -> None:
    lines = _render(width, terminal)
    assert all(len(line) <= width for line in lines), [line for line in lines if len(line) > width]
    for f in FINDINGS:
        assert _words_in_order(lines, f.message), f.message
        assert _words_in_order(lines, fix_label("fix", f) + ": " + f.fix), f.fix
    site_line = next(line for line in lines if "modeling_gpt2.py:1043:17" in line)
    assert "BRK005" in site_line and " 12" in site_line


@pytest.mark.parametrize("terminal", [False, True], ids=["ci-log", "tty"])
@pytest.mark.parametrize("width", [60, 80, 120])
def test_message_column_is_never_squeezed(width: int, terminal: bool) -> None:
    lines = _render(width, terminal)
    for f in FINDINGS:
        first_word = f.message.split()[0] + " " + f.message.split()[1]
        start = next(line.index(first_word) for line in lines if first_word in line)
        assert width - start >= MIN_MESSAGE_WIDTH


def test_wide_console_puts_the_message_beside_the_site() -> None:
    lines = _render(120, False)
    assert any("train.py:54" in line and "forward (train.py:34) recompiled" in line for line in lines)
    assert any(line.split()[:3] == ["site", "code", "n"] for line in lines)


def test_narrow_console_puts_the_message_below_the_site() -> None:
    lines = _render(60, False)
    site = next(i for i, line in enumerate(lines) if line.startswith("train.py:54"))
    assert "recompiled" not in lines[site]
    assert lines[site + 1].strip().startswith("forward (train.py:34) recompiled")


def test_ci_log_default_is_80_columns(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    out = io.StringIO()  # not a terminal: what a CI runner captures
    print_summary(_analysis(FINDINGS), None, out)
    lines = out.getvalue().splitlines()
    assert max(len(line) for line in lines) <= 80
    assert _words_in_order(lines, FINDINGS[0].message)


def test_a_word_longer_than_the_line_is_printed_whole() -> None:
    word = "torch._dynamo.config.capture_scalar_outputs_and_an_unusually_long_tail_name"
    finding = Finding(code="BRK002", name="tensor-item", severity="warning", path="t.py", line=3,
                      message="graph break: Tensor.item()", fix=f"set {word} = True")
    lines = _render(60, False, [finding])
    assert any(word in line for line in lines)


@pytest.mark.parametrize(
    ("site", "width", "expected"),
    [
        ("train.py:54", 20, "train.py:54"),
        (LONG_PATH + ":1043", 62, LONG_PATH + ":1043"),
        (LONG_PATH + ":1043", 61, "…/transformers/models/gpt2/modeling_gpt2.py:1043"),
        (LONG_PATH + ":1043", 40, "…/models/gpt2/modeling_gpt2.py:1043"),
        (LONG_PATH + ":1043", 30, "…/gpt2/modeling_gpt2.py:1043"),
        (LONG_PATH + ":1043:17", 24, "modeling_gpt2.py:1043:17"),
        (LONG_PATH + ":1043:17", 20, "model…pt2.py:1043:17"),
        ("a_really_long_module_name.py:7", 16, "a_real…name.py:7"),
    ],
)
def test_shorten_site_keeps_file_name_and_line(site: str, width: int, expected: str) -> None:
    assert shorten_site(site, width) == expected
    assert len(shorten_site(site, width)) <= width
