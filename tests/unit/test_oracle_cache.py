"""The kept oracle (tests/oracle_cache.py): a plain run is found again only under the same key, and reads as if
made for the folder asking for it."""

from __future__ import annotations

import subprocess

import pytest
from oracle import account, run_traced
from oracle_cache import kept_run, key

PROGRAM = ("import sys, torch\nf = torch.compile(lambda x: x + 1, backend='eager')\n"
           "print('x', f(torch.ones(2)).sum().item())\nprint(__file__, file=sys.stderr)\n")


@pytest.fixture
def kept(tmp_path, monkeypatch):
    monkeypatch.setenv("TDIAG_TEST_ORACLE_CACHE", str(tmp_path / "kept"))
    (tmp_path / "kept").mkdir()
    calls = []

    def run(program, env, trace_dir, args, timeout):
        calls.append(program)
        return run_traced(program, env, trace_dir, args, timeout)

    return run, calls


def _program(folder, text=PROGRAM, name="prog.py"):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text)
    return folder / name


def test_a_copy_in_another_folder_is_found_again_with_its_own_paths(tmp_path, kept, session_env):
    run, calls = kept
    first, second = _program(tmp_path / "a"), _program(tmp_path / "b")
    made = kept_run(run, first, session_env, tmp_path / "trace-a")
    found = kept_run(run, second, session_env, tmp_path / "trace-b")
    assert calls == [first]  # the second was not run
    assert (found.returncode, found.stdout) == (made.returncode, made.stdout) == (0, "x 4.0\n")
    assert str(second) in found.stderr and str(first) not in found.stderr
    logs = [sorted(p.name for p in (tmp_path / t).iterdir()) for t in ("trace-a", "trace-b")]
    assert logs[0] and logs[0] == logs[1]


def test_what_the_run_depends_on_is_in_the_key(tmp_path, session_env):
    program = _program(tmp_path / "p")
    base = key(program, session_env)
    assert key(_program(tmp_path / "q"), session_env) == base  # the same files elsewhere
    assert key(program, session_env, ["--steps", "2"]) != base
    assert key(program, {**session_env, "TORCHDYNAMO_VERBOSE": "1"}) != base
    assert key(program, {**session_env, "PYTEST_CURRENT_TEST": "t"}) == base  # the runner's own
    _program(tmp_path / "p", "x = 1\n", name="helper.py")  # a file beside it, which it may import
    assert key(program, session_env) != base
    _program(tmp_path / "r", PROGRAM + "# the program changed\n")
    assert key(tmp_path / "r" / "prog.py", session_env) != base


def test_tdiags_sources_count_only_for_a_program_that_runs_them(tmp_path, session_env):
    from oracle_cache import _inputs

    plain = _program(tmp_path / "plain", "# tdiag is mentioned, not imported\n")
    assert not [n for n, _ in _inputs(plain.parent, session_env) if n.startswith("analyzer/")]
    imports = _program(tmp_path / "imports", "import pytest\n")  # pytest loads tdiag's plugin
    assert [n for n, _ in _inputs(imports.parent, session_env) if n.startswith("analyzer/")]


def test_without_the_folder_every_run_is_live(tmp_path, monkeypatch, session_env):
    monkeypatch.delenv("TDIAG_TEST_ORACLE_CACHE", raising=False)
    calls = []

    def run(*args):
        calls.append(args)
        return subprocess.CompletedProcess([], 0, "", "")

    program = _program(tmp_path / "p")
    kept_run(run, program, session_env, tmp_path / "t1")
    kept_run(run, program, session_env, tmp_path / "t2")
    assert len(calls) == 2


def test_account_reads_the_kept_trace(tmp_path, kept, session_env):
    """account() through the kept path gives torch's counts: one graph for the one compiled function."""
    program = _program(tmp_path / "c", "import torch\nf = torch.compile(lambda x: x + 1, backend='eager')\n"
                                       "print(f(torch.ones(2)).sum().item())\n")
    first = account(program, session_env, tmp_path / "t1")
    again = account(program, session_env, tmp_path / "t2")
    assert first.graphs == again.graphs == 1 and first.stdout == again.stdout == "4.0\n"


def test_this_checkout_is_a_placeholder_and_an_entry_naming_another_checkouts_venv_runs_again(tmp_path, kept,
                                                                                               session_env):
    """A warning names torch's file under the checkout's .venv: an entry made by a clone elsewhere (a CI rehearsal
    in another folder) must not put that clone's path in this checkout's output."""
    import json

    from oracle_cache import REPO

    calls = []

    def warns(program, env, trace_dir, args, timeout):
        calls.append(program)
        return subprocess.CompletedProcess([], 0, "", f"{REPO}/.venv/lib/python3.11/site-packages/torch/x.py:1: W\n")

    program = _program(tmp_path / "w")
    made = kept_run(warns, program, session_env, None)
    (entry,) = [p for p in (tmp_path / "kept").iterdir() if (p / "result.json").exists()]
    stored = json.loads((entry / "result.json").read_text())
    assert str(REPO) not in stored["stderr"] and stored["repository"]
    assert kept_run(warns, program, session_env, None).stderr == made.stderr and len(calls) == 1
    # an entry of the kind made before: another checkout's path written out, no placeholder
    stored = {k: v for k, v in stored.items() if k != "repository"}
    stored["stderr"] = "/elsewhere/clone/.venv/lib/python3.11/site-packages/torch/x.py:1: W\n"
    (entry / "result.json").write_text(json.dumps(stored))
    again = kept_run(warns, program, session_env, None)
    assert len(calls) == 2 and again.stderr == made.stderr
    assert json.loads((entry / "result.json").read_text())["repository"]  # made again, in the new form
