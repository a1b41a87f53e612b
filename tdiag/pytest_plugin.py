"""pytest plugin (entry point ``pytest11: tdiag``): fail a test whose code graph-breaks or recompiles too much.

    @pytest.mark.tdiag(max_graph_breaks=0, max_recompiles=0)
    def test_step_compiles_whole(): ...

    def test_step(tdiag_capture):
        with tdiag_capture(max_graph_breaks=0, max_recompiles=1):
            step(x)

Both record with ``tdiag.capture`` and fail with the findings in concise lint format. The marker resets Dynamo
before the test (``reset=False`` to keep caches) so a function compiled by an earlier test is seen again.
This module is imported by every pytest run of an environment that has tdiag, so it imports no torch at the top.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tdiag.lean_dataclass import lean_dataclass

MARKER_HELP = (
    "tdiag(max_graph_breaks=0, max_recompiles=0, reset=True): fail the test when the code it runs makes more "
    "torch.compile graph breaks or recompilations than allowed (None: no limit)"
)


@lean_dataclass(frozen=True)
class Allowance:
    max_graph_breaks: int | None = 0
    max_recompiles: int | None = 0

    def violations(self, analysis: Any) -> list[str]:
        found = []
        for label, allowed, actual in (
            ("graph breaks", self.max_graph_breaks, analysis.summary.graph_breaks),
            ("recompilations", self.max_recompiles, analysis.summary.recompiles),
        ):
            if allowed is not None and actual > allowed:
                found.append(f"{label}: {actual} (allowed {allowed})")
        return found


def failure_message(analysis: Any, violations: list[str], record: Path | None) -> str:
    from tdiag.reports.lint import LintOptions, render

    lines = ["tdiag: torch.compile did more than allowed: " + ", ".join(violations), ""]
    options = LintOptions(record=str(record) if record is not None else None)
    lines.append(render(analysis, "concise", options).rstrip("\n"))
    if record is not None:
        lines += ["", f"record: {record}"]
    return "\n".join(lines)


class LimitedCapture:
    """``with`` block that records and then fails the test when the allowance is exceeded."""

    def __init__(self, allowance: Allowance, output: Path, reset: bool = False):
        from tdiag.api import capture

        self.allowance = allowance
        self.capture = capture(output, root=Path.cwd(), reset=reset)

    def __enter__(self) -> Any:
        return self.capture.__enter__()

    def __exit__(self, exc_type: Any, exc: Any, tb: Any) -> None:
        self.capture.__exit__(exc_type, exc, tb)
        if exc_type is not None:
            return  # the test's own error is the better report
        analysis = self.capture.analysis()
        violations = self.allowance.violations(analysis)
        if violations:
            pytest.fail(failure_message(analysis, violations, self.capture.path), pytrace=False)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", MARKER_HELP)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item):
    marker = item.get_closest_marker("tdiag")
    if marker is None:
        return (yield)
    options = dict(marker.kwargs)
    reset = bool(options.pop("reset", True))
    try:
        allowance = Allowance(**options)
    except TypeError as exc:
        raise pytest.UsageError(f"{item.nodeid}: @pytest.mark.tdiag: {exc}") from None
    with LimitedCapture(allowance, _record_dir(item), reset=reset):
        return (yield)


@pytest.fixture
def tdiag_capture(tmp_path: Path):
    """``with tdiag_capture(max_graph_breaks=0, max_recompiles=0, reset=False): ...`` fails the test on excess."""
    count = 0

    def limited(max_graph_breaks: int | None = 0, max_recompiles: int | None = 0, reset: bool = False) -> LimitedCapture:
        nonlocal count
        count += 1
        return LimitedCapture(Allowance(max_graph_breaks, max_recompiles), tmp_path / f"tdiag-{count}", reset=reset)

    return limited


def _record_dir(item: pytest.Item) -> Path:
    factory = getattr(item.config, "_tmp_path_factory", None)  # pytest's tmp_path_factory, cleaned up by pytest
    if factory is not None:
        return factory.mktemp("tdiag-" + "".join(c if c.isalnum() else "_" for c in item.name)[:40])
    import tempfile

    return Path(tempfile.mkdtemp(prefix="tdiag-"))
