"""A program in a subfolder of a git repository, run from the repository's root as CI runs it: every output names
its file relative to the repository (GitHub resolves annotations and SARIF uris against the checkout), tdiag's
launcher never shows in a stack, `--source-root` overrides the root, and a tdiag option given after the program
gets one line saying where it went.

One real `tdiag run` (eager backend, through the `tdiag` console script pip installs) shared by the module; the
environment leaves out the suite's GIT_CEILING_DIRECTORIES (tests/conftest.py), so the repository is found.
"""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

PROGRAM = '''\
import argparse

import torch


def step(x):
    y = x * 2
    if y.sum() > 0:  # a data-dependent branch: a graph break
        return y + 1
    return y - 1


parser = argparse.ArgumentParser()
parser.add_argument("--steps", type=int, default=3)
args = parser.parse_args()
compiled = torch.compile(step, backend="eager")
for _ in range(args.steps):
    print(float(compiled(torch.ones(4)).sum()))
'''
BRANCH_LINE = 8


def _tdiag() -> list[str]:
    """The console script pip wrote (its frame is the one a user's stack must not show), else ``python -m tdiag``."""
    script = Path(sys.executable).parent / "tdiag"
    return [str(script)] if script.exists() else [sys.executable, "-m", "tdiag"]


@pytest.fixture(scope="module")
def env(session_env) -> dict[str, str]:
    return {k: v for k, v in session_env.items() if k != "GIT_CEILING_DIRECTORIES"}


@pytest.fixture(scope="module")
def repo(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("project")
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    (root / "tools").mkdir()
    (root / "tools" / "branchy.py").write_text(PROGRAM)
    return root


@pytest.fixture(scope="module")
def run(repo, env) -> tuple[Path, subprocess.CompletedProcess]:
    record = repo / "rec"
    proc = subprocess.run([*_tdiag(), "run", "--no-profile", "-o", str(record), "tools/branchy.py"], cwd=repo, env=env,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    return record, proc


def _lint(record: Path, fmt: str, cwd: Path, env) -> str:
    proc = subprocess.run([*_tdiag(), "lint", str(record), "--format", fmt], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 1, proc.stderr  # a finding: ruff's exit 1
    return proc.stdout


def _unescape_property(value: str) -> str:
    """actions/runner's ActionCommand unescaping of a property value (the toolkit's escapeProperty reversed)."""
    for escaped, char in (("%0D", "\r"), ("%0A", "\n"), ("%3A", ":"), ("%2C", ","), ("%25", "%")):
        value = value.replace(escaped, char)
    return value


def parse_workflow_commands(text: str) -> list[tuple[str, dict[str, str], str]]:
    """``::warning file=a.py,line=3::message`` lines as the runner reads them: (command, properties, message)."""
    commands = []
    for line in text.splitlines():
        if not line.startswith("::"):
            continue
        head, sep, message = line[2:].partition("::")
        assert sep, line
        name, _, props = head.partition(" ")
        properties = dict(p.split("=", 1) for p in props.split(",") if p)
        commands.append((name, {k: _unescape_property(v) for k, v in properties.items()}, message))
    return commands


def test_the_summary_names_the_file_from_the_repository_root(run):
    _, proc = run
    assert f"tools/branchy.py:{BRANCH_LINE}:8" in proc.stderr
    assert "12.0" in proc.stdout  # the program's own output, untouched


def test_github_annotations_land_on_the_repository_file(run, repo, env):
    record, _ = run
    annotations = [c for c in parse_workflow_commands(_lint(record, "github", repo, env)) if c[0] == "warning"]
    assert annotations, "no warning annotation"
    _, props, message = annotations[0]
    assert props["file"] == "tools/branchy.py"
    # the annotation's file and line, resolved against the checkout as GitHub does, are the break's line
    lines = (repo / props["file"]).read_text().splitlines()
    assert "if y.sum() > 0" in lines[int(props["line"]) - 1]
    assert message.startswith(f"tools/branchy.py:{BRANCH_LINE}:")


def test_sarif_uris_and_the_other_lint_formats_use_the_same_path(run, repo, env, tmp_path):
    record, _ = run
    sarif = json.loads(_lint(record, "sarif", tmp_path, env))  # run from elsewhere: the record decides, not the cwd
    uris = {loc["physicalLocation"]["artifactLocation"]["uri"]
            for result in sarif["runs"][0]["results"] for loc in result["locations"]}
    assert uris == {"tools/branchy.py"}
    assert (repo / "tools/branchy.py").is_file()
    assert _lint(record, "concise", repo, env).startswith(f"tools/branchy.py:{BRANCH_LINE}:8: BRK001")
    assert {f["filename"] for f in json.loads(_lint(record, "json", repo, env))} == {"tools/branchy.py"}
    junit = ET.fromstring(_lint(record, "junit", repo, env))
    assert {suite.get("name") for suite in junit.iter("testsuite")} == {"tools/branchy.py"}
    assert {case.get("classname") for case in junit.iter("testcase")} == {"tools/branchy"}


def test_the_html_report_and_the_tui_show_the_same_path(run, repo, env):
    record, _ = run
    html = repo / "report.html"
    subprocess.run([*_tdiag(), "report", str(record), "-o", str(html)], cwd=repo, env=env, check=True, timeout=120)
    assert "tools/branchy.py" in html.read_text()
    from tdiag.analyzer import build

    analysis = build(record)
    assert [f.path for f in analysis.findings] == ["tools/branchy.py"]


def test_no_stack_shows_tdiags_launcher_or_runpy(run, repo, env):
    record, _ = run
    text = subprocess.run([*_tdiag(), "report", str(record), "--format", "json"], cwd=repo, env=env,
                          capture_output=True, text=True, check=True, timeout=120).stdout
    assert "bin/tdiag" not in text and "sys.exit(main())" not in text
    assert "runpy" not in text
    assert "User code traceback" in text or "branchy.py" in text


def test_source_root_overrides_the_repository(repo, env):
    record = repo / "rec-tools"
    proc = subprocess.run([*_tdiag(), "run", "--no-profile", "--source-root", "tools", "-o", str(record),
                           "tools/branchy.py", "--steps", "1"], cwd=repo, env=env, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stderr
    assert f"branchy.py:{BRANCH_LINE}:8" in proc.stderr and "tools/branchy.py" not in proc.stderr


def test_a_tdiag_option_after_the_program_gets_one_line(repo, env):
    proc = subprocess.run([*_tdiag(), "run", "--no-profile", "-o", str(repo / "rec-misplaced"), "tools/branchy.py",
                           "--no-tui"], cwd=repo, env=env, capture_output=True, text=True, timeout=300)
    plain = subprocess.run([sys.executable, "tools/branchy.py", "--no-tui"], cwd=repo, env=env, capture_output=True,
                           text=True, timeout=300)
    assert proc.returncode == plain.returncode == 2  # the program's own status, as python gives it
    assert plain.stderr in proc.stderr  # the program's argparse error, unchanged
    assert proc.stderr.rstrip().splitlines()[-1] == (
        "tdiag: `--no-tui` went to the program: put tdiag's options before the program name")


def _refused(argv: list[str]):
    """The Outcome of a program whose argparse refused ``argv``, made in this process by argparse itself."""
    import argparse
    import contextlib
    import io

    from tdiag.tracer.runner import Outcome

    parser = argparse.ArgumentParser()
    parser.add_argument("--steps", type=int)
    try:
        with contextlib.redirect_stderr(io.StringIO()):
            parser.parse_args(argv)
    except SystemExit as exc:
        return Outcome(2, "exit", exc)
    raise AssertionError("argparse accepted it")


def test_the_hint_names_only_tdiags_own_options_and_only_after_argparse(capsys):
    from tdiag.tracer.runner import Outcome

    from tdiag.commands.run import COMMAND, misplaced_option_hint, own_options

    parser = argparse_parser_of_run()
    options = own_options(parser)
    misplaced_option_hint(_refused(["--nope"]), ["--nope"], options)  # the program's own business: no hint
    misplaced_option_hint(Outcome(2, "exit", SystemExit(2)), ["--html", "r.html"], options)  # sys.exit(2) by hand
    assert capsys.readouterr().err == ""
    misplaced_option_hint(_refused(["--html=r.html"]), ["--html=r.html"], options)
    assert capsys.readouterr().err == (
        "tdiag: `--html` went to the program: put tdiag's options before the program name\n")
    assert COMMAND.name == "run"


def argparse_parser_of_run():
    import argparse

    from tdiag.commands.run import COMMAND

    parser = argparse.ArgumentParser(prog="tdiag run")
    COMMAND.prepare_parser(parser)
    return parser
