"""Every entry of analyzer/torch_warnings.json matches a warning text the installed torch really has, in the file
the entry names: a reworded warning in a new torch release fails here by name, not silently as a lost finding."""

from __future__ import annotations

import ast
import importlib.util
import re
from pathlib import Path

import pytest
import torch
from tdiag.analyzer.torch_warnings import catalogue, compile_modules

TORCH = Path(torch.__file__).parent


def string_texts(path: Path) -> list[str]:
    """The string literals of a source file, an f-string's replacement fields as ``{}``."""
    texts = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            texts.append(node.value)
        elif isinstance(node, ast.JoinedStr):
            texts.append("".join(v.value if isinstance(v, ast.Constant) else "{}" for v in node.values))
    return texts


@pytest.mark.parametrize("entry", catalogue(), ids=lambda e: e.id)
def test_each_entry_matches_torchs_own_text(entry):
    texts = string_texts(TORCH.parent / entry.source)
    assert any(re.search(entry.match, t) for t in texts), f"{entry.id}: not in {entry.source} of torch {torch.__version__}"
    assert any(re.search(entry.quote, t) for t in texts), f"{entry.id}: its quote is not torch's text"


def test_each_compile_module_is_torchs():
    for name in compile_modules():
        assert importlib.util.find_spec(name) is not None, name
