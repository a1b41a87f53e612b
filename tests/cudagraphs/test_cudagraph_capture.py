"""CUDA-graph decisions captured by `tdiag run` and analysed: a skip (CPU tensor in the graph) mapped to its line,
re-recordings for new sizes with the sizes, and the program's own output and torch's log lines unchanged.

The program makes torch's own calls for these decisions on the CPU (see its docstring); what each should produce is
written here by hand from the program: its line numbers, its input sizes, torch's message format.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
from tdiag.analyzer import build

PROGRAM = Path(__file__).parent / "programs" / "cudagraph_decisions.py"
SOURCE = PROGRAM.read_text().splitlines()
SCALE_LINE = next(i for i, text in enumerate(SOURCE, 1) if "# SCALE LINE" in text)
CALL_LINE = next(i for i, text in enumerate(SOURCE, 1) if "# CALL LINE" in text)
_LOG_PREFIX = re.compile(r"^[IWE]\d{4} [\d:.]+ \d+ ")  # glog-style prefix: time and pid differ between runs


@pytest.fixture(scope="module")
def runs(tmp_path_factory, session_env):
    out = tmp_path_factory.mktemp("cudagraphs") / "run"
    plain = subprocess.run([sys.executable, str(PROGRAM)], cwd=PROGRAM.parent, env=session_env,
                           capture_output=True, text=True, timeout=300)
    traced = subprocess.run([sys.executable, "-m", "tdiag", "run", "--no-tui", "-q", "-o", str(out), str(PROGRAM)],
                            cwd=PROGRAM.parent, env=session_env, capture_output=True, text=True, timeout=300)
    assert plain.returncode == 0 and traced.returncode == 0, plain.stderr + traced.stderr
    return plain, traced, build(out)


def torch_cudagraph_lines(stderr: str) -> list[str]:
    return [_LOG_PREFIX.sub("", line) for line in stderr.splitlines() if "cudagraph" in line]


def test_program_output_and_torch_logging_unchanged(runs):
    plain, traced, _ = runs
    assert traced.stdout == plain.stdout
    # torch prints its skip warning either way; the INFO recording lines the capture reads stay hidden
    assert torch_cudagraph_lines(traced.stderr) == torch_cudagraph_lines(plain.stderr)
    assert any("skipping cudagraphs due to cpu device" in line for line in torch_cudagraph_lines(plain.stderr))
    assert "Recording cudagraph tree" not in traced.stderr


def test_skip_is_mapped_to_the_cpu_tensor_line(runs):
    *_, a = runs
    forward = next(g for g in a.graphs if g.code_name.endswith("forward"))
    assert forward.cudagraph.status == "skipped" and forward.cudagraph.recordings == []
    (skip,) = forward.cudagraph.skips  # in the compile's metrics and in the log: one reason
    assert (skip.kind, skip.at, skip.op) == ("cpu_device", "compile", "l_self_scale")
    assert (skip.site.path, skip.site.line) == ("cudagraph_decisions.py", SCALE_LINE)
    (finding,) = [f for f in a.findings if f.code == "CGR001"]
    assert (finding.path, finding.line, finding.severity) == ("cudagraph_decisions.py", SCALE_LINE, "warning")
    assert "cpu device" in finding.message and "move this tensor to the GPU" in finding.fix


def test_rerecordings_counted_with_their_sizes(runs):
    *_, a = runs
    predict = [g for g in a.graphs if g.code_name == "predict"]
    # batch 8 compiles 0-th variant (static); 16 recompiles as dynamic; 24 reuses it with a new size: 3 recordings
    assert [len(g.cudagraph.recordings) for g in predict] == [1, 2]
    assert all(g.cudagraph.status == "recorded" for g in predict)
    assert [r.symint_key for r in predict[1].cudagraph.recordings] == ["(16,)", "(24,)"]
    (finding,) = [f for f in a.findings if f.code == "CGR002"]
    assert (finding.path, finding.line) == ("cudagraph_decisions.py", CALL_LINE)  # where the sizes come from
    assert finding.occurrences == 2 and finding.evidence.recordings == 3
    assert finding.evidence.shapes == ["sizes (16,)", "sizes (24,)"]  # the static first recording has no size key


def test_graph_views_show_the_decision(runs):
    """The HTML graph section and the TUI graph screen both show each graph's CUDA-graph decision."""
    import asyncio

    from tdiag.reports.html import render_html
    from tdiag.tui import make_app
    from tdiag.tui.screens.graph_detail import GraphDetailScreen

    *_, a = runs
    forward = next(g for g in a.graphs if g.code_name.endswith("forward"))
    html = render_html(a)
    section = html[html.index(f'data-compile-id="{forward.compile_id}"'):]
    section = section[: section.index("</details>")]
    expected = f"skipped: ran without CUDA graphs; cpu device (l_self_scale) at cudagraph_decisions.py:{SCALE_LINE}"
    assert "<dt>CUDA graphs</dt>" in section and expected in section

    async def graph_screen_text() -> str:
        app = make_app(a)
        async with app.run_test(size=(160, 40)) as pilot:
            await app.push_screen(GraphDetailScreen(a, forward))
            await pilot.pause()
            return str(app.screen.query_one("#graph-facts").render())

    assert expected in asyncio.run(graph_screen_text())
