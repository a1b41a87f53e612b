"""A program that calls torch._dynamo.reset() between compiles: torch clears every compile callback there, and
tdiag's compile brackets must survive it (registered again) while the program's own callback is cleared exactly as
without tdiag. The expectation is the program's: f compiles once before the reset and once after (reset drops the
cache), and its own callback fires once (printed by the program, compared with plain python)."""

from __future__ import annotations

from capture_util import under_python, under_tdiag
from tdiag.analyzer import build
from tdiag.analyzer.events import load


def test_compile_brackets_survive_dynamo_reset(tmp_path, session_env):
    plain = under_python(["dynamo_reset.py"], session_env)
    assert plain.returncode == 0 and "own callback fired 1 time(s)" in plain.stdout, plain.stderr
    run_dir = tmp_path / "run"
    done = under_tdiag(run_dir, ["dynamo_reset.py"], session_env)
    assert (done.returncode, done.stdout) == (plain.returncode, plain.stdout), done.stderr
    starts = [b for b in load(run_dir).compile_brackets if b["type"] == "compile_start" and b.get("trigger") == "DYNAMO"]
    assert len(starts) == 2  # one compile of f before the reset, one after
    assert build(run_dir).run.capture_problems == []
    assert "capture incomplete" not in done.stderr
