"""The built wheel holds exactly the tdiag tree (nothing generic like `compiler/` lands in site-packages) and
the packaged files the renderers read."""

import subprocess
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]  # tests/integration: it builds a real wheel with pip


def test_wheel_contains_exactly_the_tdiag_tree(tmp_path):
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "-q", "-w", str(tmp_path), str(REPO)],
        check=True, capture_output=True, timeout=600,
    )
    (wheel,) = tmp_path.glob("tdiag-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    tops = {n.split("/")[0] for n in names}
    assert tops == {"tdiag", next(t for t in tops if t.endswith(".dist-info"))}
    for sub in ("tracer", "compiler", "analyzer", "analyzer/rules", "tui", "reports"):
        assert f"tdiag/{sub}/__init__.py" in names, sub
    assert any(n.startswith("tdiag/reports/html/templates/") for n in names)
    assert "tdiag/notebook/magics.py" in names  # %load_ext tdiag
    assert "tdiag/mcp_server/server.py" in names  # tdiag mcp
    assert "tdiag/reports/notebook/templates/analysis.html.j2" in names
    assert any(n.startswith("tdiag/tui/") and n.endswith(".tcss") for n in names)
    assert not any("/tests/" in n or n.startswith("tests/") for n in names)
    entry_points = zipfile.ZipFile(wheel).read(next(n for n in names if n.endswith("entry_points.txt"))).decode()
    assert "torch_dynamo_backends" in entry_points and "tdiag = tdiag.compiler.backend:tdiag_backend" in entry_points
