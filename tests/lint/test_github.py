"""GitHub workflow-command output: annotation layout and actions/toolkit escaping."""

from __future__ import annotations

import dataclasses

from tdiag.reports.lint.github import annotation, escape_data, escape_property


def test_escape_data():
    assert escape_data("100% done\r\nnext") == "100%25 done%0D%0Anext"
    assert escape_data("a:b,c") == "a:b,c"  # only properties need ':' and ',' escaped


def test_escape_property():
    assert escape_property("dir,with:odd%name\n") == "dir%2Cwith%3Aodd%25name%0A"


def test_escape_percent_first():
    # '%0A' typed by the user must survive as text, not turn into a newline
    assert escape_data("%0A") == "%250A"


def test_annotation_layout(sample):
    finding = next(f for f in sample.findings if f.code == "BRK002")
    assert annotation(sample, finding) == (
        "::warning title=tdiag (BRK002),file=train.py,line=36,col=17,endLine=36,endColumn=37::"
        "train.py:36:17: BRK002 " + finding.message
    )


def test_annotation_without_column_covers_the_line(sample):
    finding = next(f for f in sample.findings if f.code == "DYN001")
    line = annotation(sample, finding)
    assert line.startswith(f"::notice title=tdiag (DYN001),file=train.py,line={finding.line},endLine={finding.line}::")
    assert ",col=" not in line


def test_annotation_escapes_hostile_text(sample):
    finding = dataclasses.replace(sample.findings[0], path="odd,dir/a:b.py", message="two\nlines 50%")
    line = annotation(sample, finding)
    assert "file=odd%2Cdir/a%3Ab.py" in line
    assert line.endswith("odd,dir/a:b.py:54:1: RCP001 two%0Alines 50%25")
    assert "\n" not in line
