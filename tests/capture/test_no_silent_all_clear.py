"""Fault injection with real torch: a capture that misses events must never read as an all-clear.

The program itself breaks the capture mid-run (tests/capture/programs/faults.py): its dynamo_start records arrive
reshaped (metadata a JSON string, as a torch release changing the event's shape would send), or torch.__trace is
taken back to a plain Logger with no handlers. The expected counts come from the record's own compile brackets
(torch._dynamo.callback, independent of the structured trace), never from the problem report under test.
"""

from __future__ import annotations

import asyncio
import html
import json
import re
import subprocess
import sys
from pathlib import Path

import jsonschema
import pytest
from capture_util import under_tdiag
from tdiag.analyzer import build
from tdiag.analyzer.events import load

SARIF_SCHEMA = Path(__file__).parent.parent / "lint" / "sarif-2.1.0-rtm.5.json"
INCOMPLETE = "capture incomplete"


def dynamo_compiles_without_start(run_dir) -> int:
    """Compiles torch's callback announced that have no dynamo_start event in the record."""
    log = load(run_dir)
    started = {b["compile_id"] for b in log.compile_brackets if b["type"] == "compile_start" and b.get("trigger") == "DYNAMO"}
    seen = {f"{e.meta['frame_id']}/{e.meta['frame_compile_id']}" for e in log.named("dynamo_start")}
    return len(started - seen)


@pytest.fixture(scope="module")
def faulty_runs(tmp_path_factory, session_env):
    runs = {}
    for fault in ("reshaped", "removed"):
        run_dir = tmp_path_factory.mktemp(fault) / "run"
        done = under_tdiag(run_dir, ["faults.py", fault], session_env)
        assert done.returncode == 0, done.stderr
        runs[fault] = (run_dir, done)
    return runs


def tdiag(*args, env) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tdiag", *args], env=env, capture_output=True, text=True, timeout=300)


def test_reshaped_event_is_counted_and_named(faulty_runs):
    run_dir, done = faulty_runs["reshaped"]
    missing = dynamo_compiles_without_start(run_dir)
    assert missing >= 1  # the with_item frame and its resume function compiled after the fault
    (problem,) = build(run_dir).run.capture_problems
    assert (problem.what, problem.exception, problem.count) == ("structured-trace handler", "TypeError", missing)
    assert "metadata is str" in problem.message and problem.torch_version.startswith("2.")
    assert INCOMPLETE in done.stderr and "structured-trace handler failed" in done.stderr
    assert "nothing to fix" not in done.stderr


def test_removed_handler_is_a_gap_not_an_all_clear(faulty_runs):
    run_dir, done = faulty_runs["removed"]
    missing = dynamo_compiles_without_start(run_dir)
    assert missing >= 1
    (problem,) = build(run_dir).run.capture_problems
    assert problem.what == "structured trace" and problem.count == missing and problem.exception is None
    assert INCOMPLETE in done.stderr and "nothing to fix" not in done.stderr


@pytest.mark.parametrize("fault", ["reshaped", "removed"])
def test_every_output_says_incomplete(fault, faulty_runs, session_env, tmp_path):
    run_dir = str(faulty_runs[fault][0])
    for fmt in ("full", "concise", "json", "json-lines", "junit", "github", "sarif"):
        lint = tdiag("lint", run_dir, "--format", fmt, env=session_env)
        assert lint.returncode == 2, (fmt, lint.stderr)  # an error, not "clean" and not "findings"
        assert f"tdiag lint: error: {INCOMPLETE}" in lint.stderr
        if fmt in ("full", "concise"):
            assert INCOMPLETE in lint.stdout and "All checks passed" not in lint.stdout
    assert tdiag("lint", run_dir, "--exit-zero", env=session_env).returncode == 2
    github = tdiag("lint", run_dir, "--format", "github", env=session_env).stdout
    assert github.startswith(f"::error title=tdiag {INCOMPLETE}::")
    sarif = json.loads(tdiag("lint", run_dir, "--format", "sarif", env=session_env).stdout)
    errors = list(jsonschema.Draft4Validator(json.loads(SARIF_SCHEMA.read_text())).iter_errors(sarif))
    assert not errors, errors[0].message
    (invocation,) = sarif["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is False
    assert INCOMPLETE in invocation["toolExecutionNotifications"][0]["message"]["text"]
    report = json.loads(tdiag("report", run_dir, env=session_env).stdout)
    assert report["run"]["capture_problems"] and report["run"]["capture_problems"][0]["count"] >= 1
    html_file = tmp_path / "r.html"
    assert tdiag("report", run_dir, "-o", str(html_file), env=session_env).returncode == 0
    banner = re.search(r'<div class="notes problems capture-incomplete" role="alert"><h3>([^<]*)</h3>', html_file.read_text())
    assert banner and INCOMPLETE in banner.group(1)
    same = tdiag("diff", run_dir, run_dir, env=session_env)
    assert same.returncode == 2 and INCOMPLETE in same.stderr


def test_tui_overview_says_incomplete(faulty_runs):
    from tdiag.tui import make_app

    app = make_app(build(faulty_runs["removed"][0]))

    async def overview_text() -> str:
        async with app.run_test(size=(140, 44)) as pilot:
            await pilot.pause()
            svg = app.export_screenshot()  # the characters on screen, styles dropped
            return html.unescape("".join(re.findall(r"<text[^>]*>([^<]*)</text>", svg))).replace("\xa0", " ")

    text = asyncio.run(overview_text())
    assert INCOMPLETE in text and "nothing in this record needs changing" not in text
