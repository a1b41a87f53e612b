"""The pytest plugin, exercised by running a small real test file under pytester."""

from __future__ import annotations

pytest_plugins = ["pytester"]

TEST_FILE = '''
import pytest
import torch


def branchy(x):
    if x.sum() > 0:
        return x + 1
    return x - 1


@pytest.mark.tdiag(max_graph_breaks=0)
def test_breaks_too_much():
    torch.compile(branchy, backend="eager")(torch.ones(3))


@pytest.mark.tdiag(max_graph_breaks=1, max_recompiles=0)
def test_within_allowance():
    torch.compile(branchy, backend="eager")(torch.ones(3))


@pytest.mark.tdiag
def test_clean():
    torch.compile(lambda x: x * 2, backend="eager")(torch.ones(3))


def test_fixture_recompiles(tdiag_capture):
    doubled = torch.compile(lambda x: x * 2, backend="eager")
    with tdiag_capture(max_recompiles=0, reset=True):
        doubled(torch.ones(3))
        doubled(torch.ones(4))


def test_fixture_allows(tdiag_capture):
    doubled = torch.compile(lambda x: x * 3, backend="eager")
    with tdiag_capture(max_recompiles=None, reset=True) as rec:
        doubled(torch.ones(3))
        doubled(torch.ones(4))
    assert rec.analysis().summary.recompiles >= 1


def test_unmarked_is_untouched():
    torch.compile(branchy, backend="eager")(torch.ones(3))
'''


def test_marker_and_fixture(pytester):
    pytester.makepyfile(test_compiled=TEST_FILE)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:textual-snapshot")
    result.assert_outcomes(passed=4, failed=2)
    output = result.stdout.str()
    assert "tdiag: torch.compile did more than allowed: graph breaks: 1 (allowed 0)" in output
    result.stdout.fnmatch_lines(["test_compiled.py:*:8: BRK001 graph break: branch on a tensor value*"])
    assert "recompilations: 1 (allowed 0)" in output
    assert "FAILED test_compiled.py::test_breaks_too_much" in output
    assert "FAILED test_compiled.py::test_fixture_recompiles" in output


def test_marker_is_registered(pytester):
    result = pytester.runpytest_subprocess("--markers", "-p", "no:textual-snapshot")
    result.stdout.fnmatch_lines(["*@pytest.mark.tdiag(max_graph_breaks=0, max_recompiles=0*"])


def test_plugin_import_does_not_import_torch(pytester):
    result = pytester.run(
        __import__("sys").executable, "-c",
        "import sys, tdiag.pytest_plugin; print('torch' in sys.modules)",
    )
    assert result.stdout.lines[-1] == "False"
