"""The project root every output's paths are relative to: the repository the program lives in.

CI systems (GitHub's workflow commands, SARIF uploads) resolve a path against the repository's checkout, so a program in
a subfolder must be reported as ``examples/train.py``, not ``train.py``. The root is found as ``git rev-parse
--show-toplevel`` would find it, without starting git (a walk up to the first folder holding ``.git``, a directory or a
worktree's file), and it honours git's ``GIT_CEILING_DIRECTORIES`` (the folders the search never climbs into).
Outside a repository it is the working directory, when the program is under it, else the program's own folder.
"""

from __future__ import annotations

import os
from pathlib import Path


def repository_root(start: str) -> str | None:
    """The top-level folder of the git repository holding ``start`` (a folder), or None."""
    ceilings = {os.path.realpath(c) for c in os.environ.get("GIT_CEILING_DIRECTORIES", "").split(os.pathsep) if c}
    here = os.path.realpath(start)
    while True:
        if os.path.exists(os.path.join(here, ".git")):
            return here
        parent = os.path.dirname(here)
        if parent == here or parent in ceilings:
            return None
        here = parent


def default_root(program_dir: str, cwd: str | None = None) -> Path:
    """The root for a program in ``program_dir`` run from ``cwd``: its repository, else ``cwd``, else its folder."""
    repository = repository_root(program_dir)
    if repository is not None:
        return Path(repository)
    cwd = os.path.realpath(cwd or os.getcwd())
    program_dir = os.path.realpath(program_dir)
    if os.path.commonpath([program_dir, cwd]) == cwd:
        return Path(cwd)
    return Path(program_dir)
