from __future__ import annotations

import pytest
from fixtures.analysis_factory import PLOTLY_STUB, hostile_analysis
from report_dom import Node, parse
from tdiag.analyzer.model import Analysis
from tdiag.reports.html.render import render


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

