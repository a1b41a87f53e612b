"""The project root: git's top-level (found as git finds it, GIT_CEILING_DIRECTORIES honoured), else the working
directory, else the program's folder. Checked against `git rev-parse --show-toplevel` itself."""

from __future__ import annotations

import os
import subprocess

from tdiag.project_root import default_root, repository_root


def _git_toplevel(folder, env) -> str | None:
    done = subprocess.run(["git", "rev-parse", "--show-toplevel"], cwd=folder, env=env, capture_output=True, text=True)
    return os.path.realpath(done.stdout.strip()) if done.returncode == 0 else None


def test_the_repository_is_gits_top_level(tmp_path, monkeypatch):
    repo = tmp_path / "repo"
    (repo / "a" / "b").mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    env = {k: v for k, v in os.environ.items() if k != "GIT_CEILING_DIRECTORIES"}
    monkeypatch.delenv("GIT_CEILING_DIRECTORIES", raising=False)
    assert repository_root(str(repo / "a" / "b")) == _git_toplevel(repo / "a" / "b", env) == os.path.realpath(repo)
    # a ceiling above the folder stops the search, for git and for tdiag alike
    env["GIT_CEILING_DIRECTORIES"] = str(repo)
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(repo))
    outside = _git_toplevel(repo / "a", env)
    assert repository_root(str(repo / "a")) is None and (outside is None or outside != os.path.realpath(repo))


def test_without_a_repository_the_working_directory_else_the_programs_folder(tmp_path, monkeypatch):
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    (tmp_path / "work" / "sub").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    work = tmp_path / "work"
    assert default_root(str(work / "sub"), cwd=str(work)) == work.resolve()
    assert default_root(str(tmp_path / "elsewhere"), cwd=str(work)) == (tmp_path / "elsewhere").resolve()
