"""SVG snapshots of every screen at 80x24 and at 140x44, from the Analysis built in analysis_factory.

Regenerate after an intended visual change:  pytest tests/tui/test_snapshots.py --snapshot-update
"""

from __future__ import annotations

import pytest
from fixtures import analysis_factory
from tdiag.tui import make_app

SCREENS = {
    "overview": [],
    "findings": ["2"],
    "recompiles": ["3"],
    "graphs": ["4"],
    "graph_detail": ["4", "enter", "down"],
    "source": ["5"],
    "help": ["question_mark"],
}
SIZES = {"80x24": (80, 24), "140x44": (140, 44)}
WIDE_SCREENS = ("overview", "findings", "recompiles", "graphs", "source")


@pytest.mark.parametrize(("screen", "size"), [(s, "80x24") for s in SCREENS] + [(s, "140x44") for s in WIDE_SCREENS])
def test_screen(snap_compare, screen, size):
    # The detail pane follows the cursor after a short delay; wait it out so the picture is settled.
    assert snap_compare(make_app(analysis_factory.sample_analysis()), press=[*SCREENS[screen], "_"],
                        terminal_size=SIZES[size])


@pytest.mark.parametrize("case", ["empty", "broken", "multi_rank"])
def test_special_records(snap_compare, case):
    builder = {"empty": analysis_factory.empty_analysis, "broken": analysis_factory.broken_record_analysis,
               "multi_rank": analysis_factory.multi_rank_analysis}[case]
    assert snap_compare(make_app(builder()), press=["2", "_"], terminal_size=(80, 24))


@pytest.mark.parametrize("screen", ["overview", "findings", "source"])
def test_measured_record(snap_compare, screen):
    """Measured cost (issue 11): runtime breakdown, cost column in cost order, source heat; hand-set costs."""
    assert snap_compare(make_app(analysis_factory.measured_analysis()), press=[*SCREENS[screen], "_"],
                        terminal_size=(140, 44))
