"""Run a GitHub Actions workflow's steps locally, the way the runner would, as far as a recipe test needs.

Each ``run:`` step runs in bash (``-eo pipefail`` for ``shell: bash``, as GitHub does) with the workflow's and the
step's ``env:``, and the GITHUB_* files pointed at temp files. ``uses:`` steps are not run: an upload-artifact step's
paths are copied aside, as uploaded, so the test can check them. Installing is the test environment's business (the step named
"Install" is skipped: tdiag is installed already). After a failing step only ``if: always()`` steps run.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import yaml

EXPRESSION = re.compile(r"\$\{\{\s*([^}]*?)\s*\}\}")


@dataclass
class StepResult:
    name: str
    returncode: int
    stdout: str
    stderr: str


@dataclass
class JobResult:
    steps: list[StepResult] = field(default_factory=list)
    artifacts: dict[str, list[Path]] = field(default_factory=dict)  # artifact name -> paths it uploads
    summary: str = ""
    failed: bool = False

    def step(self, name: str) -> StepResult:
        return next(s for s in self.steps if s.name == name)


def load(path: Path) -> dict:
    return yaml.safe_load(path.read_text(encoding="utf-8"))


def run_job(workflow: dict, job: str, workspace: Path, scratch: Path, ref: str = "refs/pull/1/merge") -> JobResult:
    definition = workflow["jobs"][job]
    shell = (workflow.get("defaults", {}).get("run", {}).get("shell")) or "bash -e"
    scratch.mkdir(parents=True, exist_ok=True)
    files = {name: scratch / name.lower() for name in ("GITHUB_OUTPUT", "GITHUB_STEP_SUMMARY", "GITHUB_ENV")}
    for path in files.values():
        path.write_text("", encoding="utf-8")
    base_env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",  # tdiag as installed here
        "CI": "true", "GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": str(workspace), "GITHUB_REF": ref,
        "RUNNER_TEMP": str(scratch),
        **{name: str(path) for name, path in files.items()},
    }
    workflow_env = {k: str(v) for k, v in (workflow.get("env") or {}).items()}
    result = JobResult()
    for step in definition["steps"]:
        condition = str(step.get("if", ""))
        if result.failed and "always()" not in condition:
            continue
        if "github.ref == 'refs/heads/main'" in condition and ref != "refs/heads/main":
            continue
        env = {**base_env, **workflow_env, **_plain(step.get("env") or {})}
        if "uses" in step:
            if step["uses"].startswith("actions/upload-artifact"):
                with_ = step.get("with") or {}
                name = _substitute(str(with_.get("name", "artifact")), env)
                paths = [workspace / _substitute(p.strip(), env) for p in str(with_["path"]).splitlines() if p.strip()]
                result.artifacts[name] = [_upload(p, scratch / "artifacts" / name) for p in paths]
            continue
        if step.get("name") == "Install":
            continue
        bash = ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c"] if shell == "bash" else ["bash", "-e", "-c"]
        proc = subprocess.run([*bash, step["run"]], cwd=workspace, env=env, capture_output=True, text=True, timeout=600)
        result.steps.append(StepResult(step.get("name", step["run"][:40]), proc.returncode, proc.stdout, proc.stderr))
        if proc.returncode != 0:
            result.failed = True
    result.summary = files["GITHUB_STEP_SUMMARY"].read_text(encoding="utf-8")
    return result


def _upload(path: Path, folder: Path) -> Path:
    """A copy, as the upload would keep it (later jobs reuse the workspace); a missing path stays missing."""
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / path.name
    if path.is_dir():
        shutil.copytree(path, target)
    elif path.exists():
        shutil.copy2(path, target)
    return target


def _plain(env: dict) -> dict[str, str]:
    """The step's env without values that need GitHub (``${{ github.token }}``): absent, as on a fork."""
    return {k: str(v) for k, v in env.items() if not EXPRESSION.search(str(v))}


def _substitute(text: str, env: dict[str, str]) -> str:
    def value(match: re.Match) -> str:
        expr = match.group(1)
        if not expr.startswith("env."):
            raise ValueError(f"the recipe test only evaluates env.NAME expressions, not {expr!r}")
        return env[expr[len("env."):]]

    return EXPRESSION.sub(value, text)
