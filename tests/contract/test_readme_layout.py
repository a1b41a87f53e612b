"""The README's layout section names every top-level folder of the repository, and only those (issue 34)."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _layout_block(readme: str) -> str:
    """The fenced block of "How it works" that lists the folders (the one whose lines start with `tdiag/ `)."""
    section = readme.split("## How it works", 1)[1].split("\n## ", 1)[0]
    blocks = section.split("```")[1::2]
    layout = [block for block in blocks if re.search(r"^tdiag/ ", block, flags=re.M)]
    assert len(layout) == 1, "How it works: one fenced block lists the folders"
    return layout[0]


def test_readme_layout_matches_the_tree():
    block = _layout_block((REPO / "README.md").read_text())
    named = set(re.findall(r"^(\w+)/ ", block, flags=re.M))
    tracked = subprocess.run(["git", "ls-files"], cwd=REPO, capture_output=True, text=True, check=True).stdout.split()
    folders = {path.split("/", 1)[0] for path in tracked if "/" in path and not path.startswith(".")}
    assert named == folders
    for path in re.findall(r"\b((?:analyzer|benchmarks|reports)/[\w/]+\.(?:py|sh))", block):
        assert (REPO / path).exists(), path
