"""Generated code is read relative to the record as it is found when loaded: a run directory moved before it is
opened shows its code; one moved after it was opened shows a note saying so, never an empty code block.

The program compiles more graphs than the analysis keeps read in memory (``BlobStore.CACHED``), so after the move
some graph texts must come from the (now missing) record file."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

import pytest
from rich.console import Console
from tdiag.analyzer import build
from tdiag.analyzer.events import BlobStore, CodeUnavailable
from tdiag.tui.screens.graphs import graph_summary
from tdiag_testing import run_tdiag

PROGRAM = Path(__file__).parent / "programs" / "long_graph.py"


@pytest.fixture(scope="module")
def run_dir(tmp_path_factory, session_env) -> Path:
    out = tmp_path_factory.mktemp("written") / "run"
    proc = run_tdiag(["run", "--no-tui", "-o", str(out), str(PROGRAM)], session_env)
    assert proc.returncode == 0, proc.stderr
    return out


def _moved(run_dir: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "elsewhere" / "run"
    shutil.copytree(run_dir, copy)
    return copy


def _text(renderable) -> str:
    out = io.StringIO()
    Console(file=out, width=200, color_system=None).print(renderable)
    return out.getvalue()


def _graphs(analysis):
    graphs = [g for g in analysis.graphs if g.code_name == "chain" and g.graph_code_ref]
    assert len(graphs) >= BlobStore.CACHED + 4
    return graphs


def test_a_moved_run_directory_shows_its_graph_code(run_dir, tmp_path):
    analysis = build(_moved(run_dir, tmp_path))
    for graph in _graphs(analysis):
        code = analysis.code[graph.graph_code_ref]
        assert not isinstance(code, CodeUnavailable)
        assert code.count("torch.sin(") >= 40  # the whole chain, read from the blob in the moved record
    assert "torch.sin(" in _text(graph_summary(analysis, graph))


def test_a_record_moved_after_loading_gives_a_clear_note(run_dir, tmp_path):
    where = _moved(run_dir, tmp_path)
    analysis = build(where)
    graphs = _graphs(analysis)
    where.rename(where.with_name("renamed"))
    codes = [analysis.code[g.graph_code_ref] for g in graphs]
    missing = [(g, c) for g, c in zip(graphs, codes) if isinstance(c, CodeUnavailable)]
    # what was not still in memory is reported, never returned as "" or as another graph's text
    assert len(missing) >= len(graphs) - BlobStore.CACHED
    assert all(c.count("torch.sin(") >= 40 for c in codes if not isinstance(c, CodeUnavailable))
    graph, note = missing[0]
    assert "moved or deleted" in note and "events" in note and str(where) in note
    shown = _text(graph_summary(analysis, graph))
    assert "generated code not available" in shown and "torch.sin(" not in shown


def test_an_export_without_code_reads_no_blob():
    from tdiag.analyzer.model import Analysis, CodeStore

    read = []

    def loader(key):
        def load():
            read.append(key)
            return f"code of {key}"
        return load

    analysis = Analysis(code=CodeStore({"k1": loader("k1"), "k2": loader("k2")}))
    assert analysis.to_dict(include_code=False)["code"] == {} and read == []
    assert analysis.to_dict()["code"] == {"k1": "code of k1", "k2": "code of k2"} and sorted(read) == ["k1", "k2"]
