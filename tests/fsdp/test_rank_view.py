"""The per-rank view (analyzer/rank_view.py) on a real 2-rank record where rank 1 alone breaks
(tests/multirank/programs/ddp_divergent.py), drawn by the HTML report in a real chromium and by the TUI's Ranks screen
through Textual's pilot; and its outlier rule on many ranks.

The oracle for the counts is torch's own stream in the record: the graph-break artifacts each rank's Dynamo emitted.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import subprocess
import sys
from collections import Counter
from pathlib import Path

import gloo_exit
import pytest
from tdiag.analyzer import build
from tdiag.analyzer.model import Analysis, RunInfo, RuntimeSummary, Summary
from tdiag.analyzer.rank_view import rank_view

from tdiag.record import open_record

PROGRAM = Path(__file__).parents[1] / "multirank" / "programs" / "ddp_divergent.py"


@pytest.fixture(scope="module")
def divergent(tmp_path_factory, session_env) -> tuple[Path, Analysis]:
    out = tmp_path_factory.mktemp("ranks") / "run"
    cmd = [sys.executable, "-m", "tdiag", "run", "--nproc-per-node", "2", "--no-tui", "-o", str(out), str(PROGRAM)]
    done = subprocess.run(cmd, cwd=PROGRAM.parent, env={**session_env, **gloo_exit.ENV}, capture_output=True,
                          text=True, timeout=300)
    gloo_exit.assert_job_exited_cleanly(done, out)
    return out, build(out)


def _torch_breaks(out: Path) -> dict[int, int]:
    counts: Counter = Counter()
    for rf in open_record(out):
        counts[rf.header["rank"]] += sum(1 for ev in rf.events()
                                         if ev["type"] == "torch" and ev["name"] == "artifact:dynamo_graph_break_reason")
    return dict(counts)


def test_the_rank_that_broke_is_the_outlier(divergent):
    out, a = divergent
    view = rank_view(a)
    breaks = _torch_breaks(out)
    assert breaks[1] > breaks[0]  # torch: rank 1 broke where rank 0 did not (both break in DDP's own forward)
    assert {row.rank: row.values["breaks"] for row in view.rows} == breaks
    assert view.outliers[0].metric == "breaks" and {o.rank for o in view.outliers} == {1}  # rank 0 is typical
    assert view.outliers[0].text().startswith(f"rank 1 on {a.run.hosts[1]}: graph breaks {breaks[1]}")


def test_html_heat_map_in_a_real_browser(divergent, browser, tmp_path):
    from tdiag.reports.html import write_html

    out, a = divergent
    path = tmp_path / "report.html"
    write_html(a, path)
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(path.as_uri() + "#ranks")
    page.wait_for_function("() => document.documentElement.dataset.ready === 'charts'")
    page.wait_for_selector("#chart-ranks svg.main-svg", state="attached")
    trace = page.evaluate("() => { const t = document.getElementById('chart-ranks').data[0];"
                          " return {type: t.type, x: t.x, y: t.y, text: t.text}; }")
    assert trace["type"] == "heatmap" and trace["x"] == ["0", "1"]
    assert trace["y"][:2] == ["graph breaks", "recompiles"] and trace["text"][0] == [str(n) for n in _torch_breaks(out).values()]
    outliers = page.inner_text("ul.rank-outliers")
    assert outliers.startswith("rank 1") and "graph breaks" in outliers
    assert errors == []
    page.close()


def test_tui_ranks_screen_through_the_pilot(divergent):
    from tdiag.tui.app import TdiagApp
    from tdiag.tui.screens.ranks import RanksScreen
    from tdiag.tui.widgets.row_table import RowTable

    _, a = divergent

    async def drive():
        app = TdiagApp(a)
        async with app.run_test(size=(140, 40)) as pilot:
            await pilot.press("k")
            await pilot.pause()
            assert isinstance(app.screen, RanksScreen)
            title = str(app.screen.query_one("#ranks-title").render())
            table = app.screen.query_one("#ranks-table", RowTable)
            cells = [[c.plain for c in table.cells(i)] for i in table.items]
            await pilot.press("escape")
            await pilot.pause()
            return title, cells, type(app.screen)

    # in a thread of its own: the session's playwright browser keeps an event loop on this one
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        title, cells, after = pool.submit(asyncio.run, drive()).result(timeout=120)
    assert "Outlier ranks: rank 1" in title
    assert [row[0] for row in cells] == ["0", "1"]
    assert not cells[0][2].endswith("!") and cells[1][2].endswith(" !")  # rank 1's breaks marked, rank 0's not
    assert after is not RanksScreen


def _ranks(step_ms: list[float]) -> Analysis:
    per_rank = {str(r): {"steps": 10, "window_s": ms * 10 / 1e3, "eager_parts": {}} for r, ms in enumerate(step_ms)}
    return Analysis(run=RunInfo(ranks=list(range(len(step_ms)))),
                    summary=Summary(runtime=RuntimeSummary(status="measured", per_rank=per_rank)))


def test_one_slow_rank_of_256_is_called_out_and_noise_is_not():
    noisy = [20.0 + (r % 7) * 0.4 for r in range(256)]  # +-7% between ranks: a shared machine's noise
    assert rank_view(_ranks(noisy)).outliers == []
    slow = list(noisy)
    slow[137] = 31.0
    (outlier,) = rank_view(_ranks(slow)).outliers
    assert (outlier.rank, outlier.metric) == (137, "step_ms")


def test_html_heat_map_of_256_ranks_in_a_real_browser(browser, tmp_path):
    from tdiag.reports.html import write_html

    step_ms = [20.0 + (r % 7) * 0.4 for r in range(256)]
    step_ms[137] = 31.0
    path = tmp_path / "report.html"
    write_html(_ranks(step_ms), path)
    page = browser.new_page(viewport={"width": 1280, "height": 900})
    page.goto(path.as_uri() + "#ranks")
    page.wait_for_function("() => document.documentElement.dataset.ready === 'charts'")
    page.wait_for_selector("#chart-ranks svg.main-svg", state="attached")
    x = page.evaluate("() => document.getElementById('chart-ranks').data[0].x")
    assert x == [str(r) for r in range(256)]
    assert page.inner_text("ul.rank-outliers").startswith("rank 137: step time 31 ms")
    page.close()
