"""torch.compile(backend="tdiag"): a registered backend that is Inductor with provenance on."""

from __future__ import annotations

import subprocess
import sys

import pytest
from compiler_testing import PROGRAMS, REPO

pytestmark = pytest.mark.inductor


def test_backend_is_inductor_with_provenance(inductor_env):
    proc = subprocess.run([sys.executable, str(PROGRAMS / "backend_tdiag.py")], env=inductor_env, cwd=REPO,
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-4000:]
    assert "backend ok" in proc.stdout


def test_backend_is_registered():
    from tdiag.compiler.backend import tdiag_backend
    from torch._dynamo.backends.registry import lookup_backend

    assert lookup_backend("tdiag") is tdiag_backend
