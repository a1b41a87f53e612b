"""One golden page for the deterministic fixture Analysis (plotly.js stubbed out and payloads unpacked, so the file
stays reviewable; the packed form is checked in test_structure and the browser tests).

Regenerate after an intended change with ``TDIAG_UPDATE_GOLDEN=1 pytest tests/html/test_golden.py`` and review the diff.
"""

from __future__ import annotations

import os
from pathlib import Path

from fixtures.analysis_factory import PLOTLY_STUB, hostile_analysis
from tdiag.reports.html.render import render

GOLDEN = Path(__file__).parent / "golden" / "report.html"


def test_golden_page() -> None:
    html = render(hostile_analysis(ranks=[0, 1]), plotly_bundle=PLOTLY_STUB, compress=False)  # reviewable text
    if os.environ.get("TDIAG_UPDATE_GOLDEN"):
        GOLDEN.write_text(html, encoding="utf-8")
    assert html == GOLDEN.read_text(encoding="utf-8")
