"""A user's project for `tdiag fix` tests: a git repository in a temp folder, recorded by a real `tdiag run`."""

from __future__ import annotations

import json
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from kept_tdiag import tdiag as kept_tdiag

PROGRAMS = Path(__file__).parent / "programs"
EXAMPLES = Path(__file__).parents[2] / "examples"


@dataclass
class Project:
    root: Path
    record: Path
    env: dict[str, str]
    run_stdout: str

    def fix(self, *args: str, timeout: int = 600) -> subprocess.CompletedProcess:
        return kept_tdiag(["fix", str(self.record), *args], self.root, self.env, timeout=timeout)

    def fix_json(self, *args: str, timeout: int = 600) -> tuple[int, dict]:
        proc = self.fix(*args, "--format", "json", timeout=timeout)
        assert proc.stdout.strip(), proc.stderr[-3000:]
        return proc.returncode, json.loads(proc.stdout)

    def git(self, *args: str) -> str:
        return subprocess.run(["git", *args], cwd=self.root, capture_output=True, text=True, check=True).stdout


def make_project(base: Path, program: Path, env: dict[str, str], *args: str) -> Project:
    """Copy ``program`` into a fresh git repository under ``base``, commit it, and record it with `tdiag run`."""
    root = base / "project"
    root.mkdir(parents=True)
    shutil.copy(program, root / program.name)
    for cmd in (["init", "-q"], ["add", "."], ["-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "init"]):
        subprocess.run(["git", *cmd], cwd=root, check=True, capture_output=True)
    return record(root, base / "record", env, program.name, *args)


def record(root: Path, out: Path, env: dict[str, str], *command: str) -> Project:
    """`tdiag run` of ``command`` from ``root`` into ``out``."""
    proc = kept_tdiag(["run", "--no-tui", "-q", "-o", str(out), *command], root, env, timeout=600)
    assert (out / "events.jsonl").exists(), proc.stderr[-3000:]
    return Project(root, out, env, proc.stdout)
