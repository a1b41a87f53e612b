"""Inductor's FX graph cache keys an entry by the graph, not by where the code lives: a second checkout of a project
(CI's clone beside a developer's, a project that moved) hits the first one's entries, and the generated code it gets
back names the first checkout's files in its stack traces. The kernel table must still point at this run's file."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

# several real runs per test (fix rounds, ranks, cold compiles): scripts/test runs it in the slow step (issue 45)
pytestmark = [pytest.mark.inductor, pytest.mark.slow]
PROGRAM = Path(__file__).parent / "programs" / "moved_step.py"


def _record(checkout: Path, cache: Path) -> Path:
    checkout.mkdir()
    shutil.copy(PROGRAM, checkout / PROGRAM.name)
    env = {**os.environ, "TORCHINDUCTOR_CACHE_DIR": str(cache), "TRITON_CACHE_DIR": str(cache / "triton"),
           "GIT_CEILING_DIRECTORIES": str(checkout.parent)}
    proc = subprocess.run([sys.executable, "-m", "tdiag", "run", "--no-tui", "-q", "-o", "run", PROGRAM.name],
                          cwd=checkout, env=env, capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-4000:]
    return checkout / "run"


def test_a_cache_hit_from_another_checkout_names_this_checkouts_file(tmp_path):
    from tdiag.analyzer import build

    cache = tmp_path / "inductor-cache"
    first = build(_record(tmp_path / "first", cache))
    second = build(_record(tmp_path / "second", cache))
    line = next(i for i, text in enumerate(PROGRAM.read_text().splitlines(), 1) if "the kernel's line" in text)

    # the precondition, in torch's own accounting of the second run: its graph came from the first run's entry
    assert second.summary.compile_cache.fx_graph.hit >= 1, second.summary.compile_cache
    for analysis in (first, second):
        kernels = [k for g in analysis.graphs for k in g.kernels if k.kind != "extern"]
        assert kernels, "Inductor generated no kernel"
        assert {(ref.path, ref.line) for k in kernels for ref in k.source_lines} == {(PROGRAM.name, line)}
