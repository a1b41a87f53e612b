"""One Reporter registry for every output; the commands hand their subject to it and print exactly what the
golden-tested renderers produce."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
from tdiag.analyzer import build
from tdiag.reports import lint
from tdiag.reports.registry import LINT_FORMATS, REPORTERS, ReportOptions, get_reporter

from tdiag.errors import TdiagError

TESTS = Path(__file__).parent.parent


def test_registry_covers_every_output():
    expected = {"console", "json", "html", "diff-text", "diff-json", "fix-text", "fix-json"} | {f"lint-{fmt}" for fmt in LINT_FORMATS}
    assert set(REPORTERS) == expected
    for name, reporter in REPORTERS.items():
        assert reporter.name == name and reporter.extensions and all(e.startswith(".") for e in reporter.extensions)
    assert {n for n, r in REPORTERS.items() if r.is_human_readable} == {
        "console", "html", "diff-text", "fix-text", "lint-statistics", *(f"lint-{f}" for f in lint.HUMAN_FORMATS)
    }
    with pytest.raises(TdiagError, match="no output format 'yaml'"):
        get_reporter("yaml")


@pytest.fixture(scope="module")
def record(recorded) -> str:
    """print_call.py's record from the session's shared runs (tests/conftest.py): read here, never written."""
    run_dir, done = recorded("print_call.py")
    assert done.returncode == 0, done.stderr
    return str(run_dir)


def tdiag(*args, env) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tdiag", *args], env=env, capture_output=True, text=True, timeout=300)


def test_commands_print_what_the_renderers_make(record, session_env):
    analysis = build(record)
    for fmt in ("full", "json", "sarif"):
        assert tdiag("lint", record, "--format", fmt, env=session_env).stdout == lint.render(
            analysis, fmt, lint.LintOptions(record=record))
    report = tdiag("report", record, "--no-code", env=session_env).stdout
    assert report == json.dumps(analysis.to_dict(include_code=False), indent=2, default=str) + "\n"
    console = io.StringIO()
    get_reporter("console").render(analysis, console, ReportOptions(run_dir=Path(record)))
    assert "what torch.compile did" in console.getvalue() and "BRK004" in console.getvalue()
    diff = tdiag("diff", record, record, env=session_env)
    assert diff.returncode == 0 and "no regressions" in diff.stdout
