"""The list of private torch touchpoints (tracer/torch_compat.py) is true of the installed torch and complete."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest
from tdiag.tracer.torch_compat import TOUCHPOINTS

REPO = Path(__file__).resolve().parents[2]


def _resolve(dotted: str):
    parts = dotted.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr)
        return obj
    raise ImportError(dotted)


@pytest.mark.parametrize("point", [p for p in TOUCHPOINTS if p.kind == "attribute"], ids=lambda p: p.name)
def test_each_touchpoint_exists_in_this_torch(point):
    _resolve(point.name)  # an upgrade that moved it fails here, by name


@pytest.mark.parametrize("point", TOUCHPOINTS, ids=lambda p: p.name)
def test_each_touchpoint_is_used_where_it_says(point):
    source = (REPO / point.used_in).read_text()
    last = point.name.rsplit(".", 1)[-1]
    assert last in source or point.name in source, f"{point.used_in} does not touch {point.name}"


def test_every_private_module_the_capture_imports_is_listed():
    imported = set()
    for path in [*(REPO / "tracer").glob("*.py"), *(REPO / "compiler").glob("*.py")]:
        text = path.read_text()
        imported |= set(re.findall(r"from (torch\._[\w.]+) import", text))
        imported |= set(re.findall(r"import (torch\._[\w.]+)", text))
    listed = [p.name for p in TOUCHPOINTS]
    missing = sorted(m for m in imported if not any(name == m or name.startswith(m + ".") for name in listed))
    assert missing == [], f"private torch modules imported by the capture but not in tracer/torch_compat.py: {missing}"
