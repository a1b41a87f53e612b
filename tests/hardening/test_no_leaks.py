"""Nothing leaks: no environment variable, no argv secret the user redacts, no source outside the project root."""

from __future__ import annotations

from hardening_util import PROGRAMS, plain, report, under_tdiag
from tdiag.analyzer import build

SECRET_ENV = "tdiag-env-secret-5be1c0"
SECRET_ARG = "hunter2-argv-5be1c0"


def test_record_holds_no_env_no_redacted_argv_no_outside_source(session_env, tmp_path):
    env = {**session_env, "TDIAG_TEST_SECRET": SECRET_ENV, "AWS_SECRET_ACCESS_KEY": SECRET_ENV}
    proj = PROGRAMS / "leak" / "proj"
    args = ["main.py", f"--token={SECRET_ARG}"]
    expected = plain(args, env, cwd=proj)
    got = under_tdiag(tmp_path / "r", args, env, cwd=proj, tdiag_opts=("--redact", r"hunter2-\S+"))
    assert got.returncode == expected.returncode == 0, got.stderr.decode()
    assert got.stdout == expected.stdout  # the program itself still sees its real argv
    data = (tmp_path / "r" / "events.jsonl").read_bytes()
    assert SECRET_ENV.encode() not in data
    assert SECRET_ARG.encode() not in data
    assert b"HELPER-MARKER-7f3a" not in data  # the helper outside the project root is never snapshotted
    a = build(tmp_path / "r")
    assert set(a.sources) == {"main.py"}
    assert a.run.argv == ["main.py", "--token=***"]
    user_line = next(i for i, ln in enumerate((proj / "main.py").read_text().splitlines(), 1) if "USER-LINE" in ln)
    assert a.breaks and {(gb.site.path, gb.site.line) for gb in a.breaks} == {("main.py", user_line)}
    assert {f.path for f in a.findings} == {"main.py"}  # the finding points at the user's call, not the helper
    report("leaks-env-argv-sources", "leaks",
           "secret env vars, a --redact'ed argv secret, a graph break inside a helper outside the project root", 3,
           "none of them in the record; only main.py snapshotted; the break points at the user's line in main.py")
