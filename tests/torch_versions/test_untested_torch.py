"""A torch outside the tested matrix runs, and every output says so in one line (which torch, which releases were
tested, how to report a difference); nothing is refused and no exit code changes.

The record is a real capture of tests/programs/print_call.py (the session's shared run); its copy here names a
torch 2.16 in its header, as a capture under that release writes it (the analysis reads the version from the
header only, and must not import torch).
"""

from __future__ import annotations

import asyncio
import html
import io
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from tdiag.analyzer import build
from tdiag.reports.registry import ReportOptions, get_reporter

from tdiag.record import record_file_name
from tdiag.torch_releases import TESTED, untested_notice

NEWER = "2.16.0+cu130"
NOTICE = f"torch {NEWER} is newer than the releases tdiag was tested on"


@pytest.mark.parametrize("version, expected", [
    ("2.16.0", "newer"), ("2.16.0a0+git1234", "newer"), ("3.0.0", "newer"), ("2.8.0+cpu", "older"),
    ("2.15.0+cu132", None), ("2.14.1+cu128", None), ("2.14.2", None), ("2.13.0+cpu", None), ("2.10.0", None), ("", None), ("unknown", None),
    (None, None),
])
def test_notice_only_outside_the_tested_matrix(version, expected):
    notice = untested_notice(version, TESTED)
    if expected is None:
        assert notice is None
    else:
        assert notice.startswith(f"torch {version} is {expected} than") and ", ".join(TESTED) in notice
        assert "report it" in notice


def test_the_capturing_tdiags_matrix_decides():
    assert untested_notice("2.14.1", ["2.9.1", "2.13.0"]).startswith("torch 2.14.1 is newer")


@pytest.fixture(scope="module")
def records(recorded, tmp_path_factory) -> tuple[str, str]:
    """(the real record, its copy whose header names torch 2.16)."""
    run_dir, done = recorded("print_call.py")
    assert done.returncode == 0, done.stderr
    newer = tmp_path_factory.mktemp("newer-torch") / "run"
    shutil.copytree(run_dir, newer)
    events = newer / record_file_name(None)
    header, rest = events.read_text().split("\n", 1)
    header = json.loads(header)
    assert header["torch"].startswith("2.") and header["torch_tested"] == list(TESTED)  # written by the capture
    events.write_text(json.dumps({**header, "torch": NEWER}) + "\n" + rest)
    return str(run_dir), str(newer)


def tdiag(*args, env) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tdiag", *args], env=env, capture_output=True, text=True, timeout=300)


def test_json_and_console_say_it(records):
    tested, newer = records
    assert build(tested).run.torch_notice is None
    analysis = build(newer)
    assert analysis.run.torch_notice.startswith(NOTICE) and not analysis.run.capture_problems
    assert analysis.to_dict(include_code=False)["run"]["torch_notice"] == analysis.run.torch_notice
    console = io.StringIO()
    get_reporter("console").render(analysis, console, ReportOptions(run_dir=Path(newer)))
    assert NOTICE in " ".join(console.getvalue().split())


def test_lint_says_it_with_the_same_exit_codes(records, session_env):
    tested, newer = records
    for fmt in ("full", "concise", "json", "json-lines", "junit", "github", "sarif"):
        before = tdiag("lint", tested, "--format", fmt, env=session_env)
        after = tdiag("lint", newer, "--format", fmt, env=session_env)
        assert after.returncode == before.returncode == 1, (fmt, after.stderr)  # print_call.py's break: findings
        said = after.stdout if fmt in ("full", "concise") else after.stderr
        assert NOTICE in said, fmt
        assert NOTICE not in before.stdout + before.stderr
    github = tdiag("lint", newer, "--format", "github", env=session_env).stdout
    assert github.startswith(f"::notice title=tdiag untested torch::{NOTICE}")
    sarif = json.loads(tdiag("lint", newer, "--format", "sarif", env=session_env).stdout)
    (invocation,) = sarif["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is True
    assert invocation["toolExecutionNotifications"][0]["level"] == "note"
    assert NOTICE in invocation["toolExecutionNotifications"][0]["message"]["text"]
    assert tdiag("diff", newer, tested, env=session_env).returncode == 0


def test_html_says_it(records, session_env, tmp_path):
    page = tmp_path / "r.html"
    assert tdiag("report", records[1], "-o", str(page), env=session_env).returncode == 0
    shown = re.search(r'<div class="notes torch-untested" role="note"><p>([^<]*)</p>', page.read_text())
    assert shown and NOTICE in html.unescape(shown.group(1))


def test_tui_overview_says_it(records):
    from tdiag.tui import make_app

    app = make_app(build(records[1]))

    async def overview_text() -> str:
        async with app.run_test(size=(160, 44)) as pilot:
            await pilot.pause()
            svg = app.export_screenshot()
            return html.unescape("".join(re.findall(r"<text[^>]*>([^<]*)</text>", svg))).replace("\xa0", " ")

    assert "is newer than the releases tdiag" in asyncio.run(overview_text())
