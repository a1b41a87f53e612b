"""The notebook the tests execute: the shipped example, then cells for what a user must not see go wrong."""

from __future__ import annotations

from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "notebook.ipynb"
NOT_IN_ORACLE = "not-in-oracle"  # the uncaptured cell: its recompile is not one of the captured ones

# After the example (which ends with `%tdiag off` in force): a captured cell that fails (its findings must still
# show, then the error), and a cell whose recompile must not be captured.
EXTRA_CELLS = [
    ("print(rec.path)  # the record of the tdiag.capture() cell", [NOT_IN_ORACLE]),
    ('%%tdiag\nout = cstep(torch.ones(2, 2, 2, 2), 1.0)  # a recompile, then an error\n'
     'raise ValueError("boom in a captured cell")', ["raises-exception"]),
    ("%tdiag report", []),
    ("out = cstep(torch.ones(2, 2, 2, 2, 2), 1.0)  # not captured", [NOT_IN_ORACLE]),
    ("import os\nprint(sorted(os.listdir('tdiag-runs')))", []),
]


def notebook_under_test() -> nbformat.NotebookNode:
    nb = nbformat.read(EXAMPLE, as_version=4)
    for source, tags in EXTRA_CELLS:
        nb.cells.append(new_code_cell(source, metadata={"tags": tags}))
    return nb


def oracle_script(nb: nbformat.NotebookNode) -> str:
    """The notebook's calls as a plain script, without tdiag: magics, the capture and the failing line removed."""
    lines = []
    for cell in nb.cells:
        if cell.cell_type != "code" or NOT_IN_ORACLE in cell.metadata.get("tags", []):
            continue
        for line in cell.source.splitlines():
            if "tdiag.capture()" in line:
                lines.append("if True:")  # the block's body stays indented
            elif not (line.startswith("%") or "tdiag" in line or line.startswith("raise ") or line == "rec.analysis()"):
                lines.append(line)
        lines.append("")
    return "\n".join(lines)
