"""The README's example blocks are real runs (scripts/readme_examples.py writes them) and still match a fresh one.

CPU timings vary between runs, so the comparison is on what is deterministic: the program's output, the counts, and
each finding's site, code, count and message with its timings masked (findings that exist only by a measured share
of the step, RUN*, come and go with the machine's load and are left out).
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _script():
    spec = importlib.util.spec_from_file_location("readme_examples", REPO / "scripts" / "readme_examples.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_readme_block_is_a_run_from_the_repository_root():
    script = _script()
    block = script.readme_block("run")
    assert block.startswith("$ tdiag run examples/train.py\n")
    shown = script.deterministic(block)
    assert {code for _, code, _, _ in shown["findings"]} >= {"BRK001", "BRK002", "RCP001"}
    # repository-relative paths, as CI resolves them; no path of the machine that made it
    assert all(site.startswith("examples/train.py:") for site, _, _, _ in shown["findings"])
    assert "/home/" not in block and "/work/" not in block and "/tmp/" not in block
    assert "tdiag: what torch.compile did" in block and "open it: tdiag tui" in block


@pytest.mark.slow
def test_the_readme_block_matches_a_fresh_run():
    script = _script()
    shown = script.deterministic(script.readme_block("run"))
    fresh = script.deterministic(script.run_example("run"))
    assert fresh["program"] == shown["program"]
    assert fresh["counts"] == shown["counts"]
    assert fresh["findings"] == shown["findings"]
