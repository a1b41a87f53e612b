from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def tdiag_run(program: Path, out: Path, env: dict[str, str]) -> Path:
    cmd = [sys.executable, "-m", "tdiag", "run", "--no-tui", "-q", "--no-profile", "-o", str(out), str(program)]
    proc = subprocess.run(cmd, env=env, cwd=REPO, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return out


@pytest.fixture(scope="session")
def kernels_env(tmp_path_factory) -> dict[str, str]:
    env = dict(os.environ)
    env["TORCHINDUCTOR_CACHE_DIR"] = str(tmp_path_factory.mktemp("inductor-cache"))
    return env
