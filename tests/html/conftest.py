from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from fixtures.analysis_factory import PLOTLY_STUB, hostile_analysis
from report_dom import Node, parse
from tdiag.analyzer.model import Analysis
from tdiag.reports.html.render import render

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts"



@pytest.fixture(scope="session")
def analysis() -> Analysis:
    return hostile_analysis()


@pytest.fixture(scope="session")
def html(analysis: Analysis) -> str:
    # structure tests do not need the 4.8 MB plotly bundle
    return render(analysis, plotly_bundle=PLOTLY_STUB)


@pytest.fixture(scope="session")
def dom(html: str) -> Node:
    return parse(html)


@pytest.fixture(scope="session")
def artifacts() -> Path:
    """Screenshots kept for a human (and CI upload); the folder is gitignored."""
    ARTIFACTS.mkdir(exist_ok=True)
    return ARTIFACTS


@pytest.fixture(scope="module")
def browser():
    # Module scope, not session: playwright's sync API keeps an asyncio loop marked as running on this thread
    # while it lives, which would break every later test in the same worker that starts its own loop (the TUI's).
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed")
    if not Path(CHROMIUM).exists() and not shutil.which("chromium"):
        pytest.skip("chromium is not installed at /usr/bin/chromium")
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield browser
        browser.close()
