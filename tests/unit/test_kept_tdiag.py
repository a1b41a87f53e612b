"""Kept tdiag commands (tests/kept_tdiag.py): a `tdiag run` or `tdiag fix` is found again only under the same key,
its record reads as if made in the folder asking for it, and `tdiag fix` keys on the record it reads."""

from __future__ import annotations

import json

import pytest
from kept_tdiag import _live, tdiag
from tdiag.analyzer import build

PROGRAM = ("import torch\n\n\n@torch.compile(backend='eager')\ndef f(x):\n    print('in f')\n    return x + 1\n\n\n"
           "print('y', f(torch.ones(2)).sum().item())\n")


@pytest.fixture
def live_calls(tmp_path, monkeypatch):
    """The cache in a folder of this test's own; the commands made live, counted."""
    import kept_tdiag

    monkeypatch.setenv("TDIAG_TEST_ORACLE_CACHE", str(tmp_path / "kept"))
    (tmp_path / "kept").mkdir()
    calls = []

    def live(args, cwd, env, timeout):
        calls.append(args[0])
        return _live(args, cwd, env, timeout)

    monkeypatch.setattr(kept_tdiag, "_live", live)
    return calls


def _project(folder, text=PROGRAM):
    folder.mkdir(parents=True)
    (folder / "prog.py").write_text(text)
    return folder


def test_a_run_in_another_folder_is_replayed_with_its_own_paths(tmp_path, live_calls, session_env):
    first, second = _project(tmp_path / "a"), _project(tmp_path / "b")
    made = tdiag(["run", "--no-tui", "-q", "-o", "rec", "prog.py"], first, session_env)
    found = tdiag(["run", "--no-tui", "-q", "-o", "rec", "prog.py"], second, session_env)
    assert live_calls == ["run"]  # the second was not run
    assert (found.returncode, found.stdout) == (made.returncode, made.stdout) == (0, "in f\ny 4.0\n")
    text = (second / "rec" / "events.jsonl").read_text()
    assert str(second) in text and str(first) not in text
    a, b = build(first / "rec"), build(second / "rec")
    assert [(f.code, f.line) for f in a.findings] == [(f.code, f.line) for f in b.findings]
    assert any(f.family == "BRK" and f.line == 6 for f in b.findings)  # the print's break, read from the replay
    assert all(str(first) not in f.path for f in b.findings)


def test_what_the_command_depends_on_makes_it_run_again(tmp_path, live_calls, session_env):
    project = _project(tmp_path / "p")
    tdiag(["run", "--no-tui", "-q", "-o", "r1", "prog.py"], project, session_env)
    (project / "prog.py").write_text(PROGRAM.replace("ones(2)", "ones(3)"))
    changed = tdiag(["run", "--no-tui", "-q", "-o", "r2", "prog.py"], project, session_env)
    (project / "data.txt").write_text("a file beside the program")
    tdiag(["run", "--no-tui", "-q", "-o", "r3", "prog.py"], project, session_env)
    tdiag(["run", "--no-tui", "-q", "-o", "r4", "prog.py"], project, {**session_env, "TDIAG_SOMETHING": "1"})
    assert live_calls == ["run"] * 4 and changed.stdout == "in f\ny 6.0\n"


def test_fix_keys_on_the_record_and_replays_what_it_wrote_into_it(tmp_path, live_calls, session_env):
    first, second = _project(tmp_path / "a"), _project(tmp_path / "b")
    for project in (first, second):
        tdiag(["run", "--no-tui", "-q", "-o", "rec", "prog.py"], project, session_env)
        tdiag(["fix", "rec", "--verify", "--format", "json", "--no-parity"], project, session_env)
    assert live_calls == ["run", "fix"]
    verdicts = [json.loads((p / "rec" / "fix" / "verification.json").read_text()) for p in (first, second)]
    assert verdicts[0] == json.loads(json.dumps(verdicts[1]).replace(str(second), str(first)))
    assert (second / "prog.py").read_text() == PROGRAM  # verify patches a scratch copy only
    third = _project(tmp_path / "c")
    tdiag(["run", "--no-tui", "-q", "-o", "rec", "prog.py"], third, session_env)
    events = third / "rec" / "events.jsonl"
    events.write_text(events.read_text().replace("in f", "in g"))  # another record: fix reads it, so runs again
    tdiag(["fix", "rec", "--verify", "--format", "json", "--no-parity"], third, session_env)
    assert live_calls == ["run", "fix", "fix"]


def test_commands_that_write_elsewhere_or_compile_into_their_own_cache_are_live(tmp_path, live_calls, session_env):
    project = _project(tmp_path / "p")
    tdiag(["run", "--no-tui", "-q", "prog.py"], project, session_env)  # no -o: a folder of its own choosing
    own_cache = {**session_env, "TORCHINDUCTOR_CACHE_DIR": str(tmp_path / "cache")}
    for _ in range(2):
        tdiag(["run", "--no-tui", "-q", "-o", "r", "prog.py"], project, own_cache)
    tdiag(["run", "--no-tui", "-q", "-o", "rec", "prog.py"], project, session_env)
    tdiag(["fix", "rec", "--apply", "--force"], project, session_env)
    assert live_calls == ["run"] * 4 + ["fix"]


def test_apply_replays_the_patched_program_and_its_backup(tmp_path, live_calls, session_env):
    """`fix --verify --apply` in a git project: the second project gets the first's patched file, and its undo
    (a live command) restores the program from the replayed backup."""
    import subprocess

    projects = [_project(tmp_path / "a"), _project(tmp_path / "b")]
    for project in projects:
        for cmd in (["init", "-q"], ["add", "."], ["-c", "user.name=t", "-c", "user.email=t@example.com",
                                                    "commit", "-qm", "init"]):
            subprocess.run(["git", *cmd], cwd=project, check=True, capture_output=True)
        tdiag(["run", "--no-tui", "-q", "-o", "rec", "prog.py"], project, session_env)
        tdiag(["fix", "rec", "--verify", "--apply", "--no-parity"], project, session_env)
    assert live_calls == ["run", "fix"]
    patched = [(p / "prog.py").read_text() for p in projects]
    assert patched[0] == patched[1] != PROGRAM
    undone = tdiag(["fix", "rec", "--undo"], projects[1], session_env)
    assert undone.returncode == 0 and (projects[1] / "prog.py").read_text() == PROGRAM
    assert live_calls == ["run", "fix", "fix"]
