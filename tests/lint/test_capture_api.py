"""tdiag.capture(): the Python API records a block of real torch.compile work."""

from __future__ import annotations

import pytest
import torch

import tdiag
from tdiag.errors import TdiagError


def branchy(x):
    if x.sum() > 0:  # a data-dependent branch: one graph break
        return x + 1
    return x - 1


def test_capture_records_breaks_and_recompiles(tmp_path):
    compiled = torch.compile(branchy, backend="eager")
    with tdiag.capture(tmp_path / "run", reset=True) as rec:
        compiled(torch.ones(3))
        compiled(torch.ones(5))
    analysis = rec.analysis()
    assert rec.path == tmp_path / "run" and (rec.path / "events.jsonl").exists()
    assert analysis.run.complete and analysis.run.command == "tdiag.capture()"
    assert analysis.summary.graph_breaks >= 1 and analysis.summary.recompiles >= 1
    brk = next(f for f in analysis.findings if f.code == "BRK001")
    assert brk.path == "test_capture_api.py"  # relative to the calling file's directory
    assert "if x.sum() > 0" in analysis.sources["test_capture_api.py"]
    assert rec.analysis() is analysis


def test_capture_defaults_to_a_temporary_directory():
    with tdiag.capture(reset=True) as rec:
        torch.compile(lambda x: x * 2, backend="eager")(torch.ones(2))
    assert rec.path.is_dir() and rec.analysis().summary.graphs == 1


def test_exception_in_block_is_recorded_and_propagates(tmp_path):
    with pytest.raises(RuntimeError):
        with tdiag.capture(tmp_path / "run") as rec:
            raise RuntimeError("boom")
    assert rec.analysis().run.exit_reason == "exception"


def test_analysis_before_the_block_is_an_error():
    with pytest.raises(TdiagError):
        tdiag.capture().analysis()
