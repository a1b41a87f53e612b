"""The analyzer's shared sample Analysis (a real capture, as JSON) opens on every screen without errors."""

from __future__ import annotations

import json
from pathlib import Path

from tdiag.analyzer.model import Analysis
from tdiag.tui import make_app

SAMPLE = Path(__file__).parent.parent / "data" / "sample_analysis.json"


async def test_real_sample_opens_on_every_screen():
    analysis = Analysis.from_dict(json.loads(SAMPLE.read_text()))  # committed: missing is a failure, never a skip
    assert analysis.findings  # the sample is a real run with problems: the top one must open
    app = make_app(analysis)
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.press("enter")  # the top problem
        assert app.screen.selected_finding is analysis.findings[0]
        for key in ("3", "4", "enter", "escape", "5", "n", "1"):
            await pilot.press(key)
        assert app.screen.id == "overview"
