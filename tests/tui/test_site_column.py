"""Site columns keep the file name and the line of a long library path (issue 16): directories go from the left.

Expected cells are written by hand for each screen's column width (findings 24, overview 22, recompiles 18).
"""

from __future__ import annotations

from shared_app import screen_text
from tdiag.analyzer.model import Analysis, Finding, FrameInfo, Summary
from tdiag.tui import make_app

LIBRARY = "<site-packages>/transformers/models/gpt2/modeling_gpt2.py"


def _analysis() -> Analysis:
    finding = Finding(code="BRK005", name="untraceable-call", severity="warning", path=LIBRARY, line=412,
                      message="graph break: call to a function Dynamo cannot trace", fix="wrap it", occurrences=3)
    frame = FrameInfo(frame_id=0, code_name="forward", path=LIBRARY, line=1043, variants=["0/0", "0/1"], recompiles=1)
    return Analysis(findings=[finding], frames=[frame], summary=Summary(graph_breaks=3, break_sites=1, recompiles=1))


async def test_site_columns_keep_file_name_and_line() -> None:
    app = make_app(_analysis())
    async with app.run_test(size=(160, 40)) as pilot:
        await pilot.press("1")
        await pilot.pause()
        overview = screen_text(app)
        await pilot.press("2")
        await pilot.pause()
        findings = screen_text(app)
        await pilot.press("3")
        await pilot.pause()
        recompiles = screen_text(app)
    assert "…/modeling_gpt2.py:412" in overview  # 22 columns
    assert "…/modeling_gpt2.py:412" in findings  # 24 columns: "…/gpt2/" would not fit
    assert "modeli…pt2.py:1043" in recompiles  # 18 columns: even the file name is cut, in its middle
