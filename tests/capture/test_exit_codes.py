"""Exit codes as ruff has them: 0 clean, 1 findings, 2 usage or internal error; a report that cannot be written is
a clear error (2) in every command; an internal error is one line plus where its traceback went (-v prints it)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from tdiag import cli
from tdiag.commands import report as report_command

TESTS = Path(__file__).parent.parent


def tdiag(*args, env) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "tdiag", *args], env=env, capture_output=True, text=True, timeout=300)


@pytest.fixture(scope="module")
def record(recorded) -> str:
    """print_call.py's record from the session's shared runs (tests/conftest.py): read here, never written."""
    run_dir, done = recorded("print_call.py")
    assert done.returncode == 0, done.stderr
    return str(run_dir)


@pytest.fixture
def not_a_dir(tmp_path) -> Path:
    """A parent that is a file: unwritable for any user, root included."""
    blocker = tmp_path / "blocker"
    blocker.write_text("")
    return blocker


def test_findings_exit_1_and_clean_selection_exit_0(record, session_env):
    assert tdiag("lint", record, env=session_env).returncode == 1  # print() in compiled code: BRK004
    assert tdiag("lint", record, "--select", "RCP", env=session_env).returncode == 0


@pytest.mark.parametrize("args", [
    ["report", "{record}", "-o", "{bad}/out.json"],
    ["report", "{record}", "-o", "{bad}/out.html"],
    ["lint", "{record}", "--output-file", "{bad}/lint.txt"],
    ["import", str(TESTS / "imports" / "data" / "tlparse_comp_failure.log"), "-q", "-o", "{bad}/imported"],
])
def test_unwritable_output_is_a_clear_error(args, record, not_a_dir, session_env):
    done = tdiag(*[a.format(record=record, bad=not_a_dir) for a in args], env=session_env)
    assert done.returncode == 2, done.stderr
    assert re.search(rf"^tdiag {args[0]}: error: cannot (write|create) .*{not_a_dir.name}", done.stderr, re.M), done.stderr
    assert "Traceback" not in done.stderr


def test_run_keeps_the_programs_exit_code_when_the_html_cannot_be_written(not_a_dir, tmp_path, session_env):
    done = tdiag("run", "--no-tui", "-q", "--html", f"{not_a_dir}/r.html", "-o", str(tmp_path / "run"),
                 str(TESTS / "programs" / "exits.py"), "3", env=session_env)
    assert done.returncode == 3, done.stderr
    assert "could not write the HTML report" in done.stderr


def test_internal_error_is_one_line_exit_2_with_the_traceback_saved(record, monkeypatch, capsys):
    def broken(output):  # a bug inside tdiag (not in torch, not in the user's program)
        raise ZeroDivisionError("injected for the test")

    monkeypatch.setattr(report_command, "guess_format", broken)
    assert cli.main(["report", record]) == 2
    err = capsys.readouterr().err
    (line,) = err.splitlines()
    match = re.fullmatch(r"tdiag report: internal error: ZeroDivisionError: injected for the test "
                         r"\(traceback written to (\S+); -v prints it\)", line)
    assert match, line
    saved = Path(match.group(1)).read_text()
    assert "Traceback" in saved and "def broken" not in saved and "injected for the test" in saved
    assert "in broken" in saved  # the frame where it was raised
    Path(match.group(1)).unlink()

    assert cli.main(["report", "-v", record]) == 2
    err = capsys.readouterr().err
    assert err.startswith("Traceback") and "in broken" in err and err.rstrip().splitlines()[-1].startswith("tdiag report: internal error")
    Path(re.search(r"written to (\S+);", err).group(1)).unlink()


def test_an_error_inside_the_analysis_keeps_its_traceback(record, monkeypatch, capsys):
    from tdiag.analyzer.build import Builder

    def broken(self):  # a bug deep inside build()
        raise KeyError("injected in the analysis")

    monkeypatch.setattr(Builder, "_frames", broken)
    assert cli.main(["lint", "-v", record]) == 2
    err = capsys.readouterr().err
    last = err.rstrip().splitlines()[-1]
    # the stage that failed, what it costs (the stages that needed it are named), where its traceback is
    assert last.startswith("tdiag lint: error: analysis incomplete: graphs failed: KeyError: 'injected in the analysis'"), last
    skipped = re.search(r"skipped for want of them: ([^;]+);", last).group(1).split(", ")
    assert {"hidden_causes", "crashes", "kernels", "rules"} <= set(skipped), skipped
    saved = Path(re.search(r"traceback in (\S+?)\)", last).group(1))
    assert "in broken" in saved.read_text() and "Traceback" in saved.read_text()  # the injected frame, kept
    saved.unlink()
