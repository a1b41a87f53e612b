"""Notebook cells as sources: cells have no file, so a capture names them as IPython does (``In [3]``).

IPython compiles each cell under a made-up file name (``<ipython-input-3-...>``, or ipykernel's
``/tmp/ipykernel_<pid>/<hash>.py``), records which execution count it belongs to, and keeps its text in
``linecache``. The capture snapshots that text, labelled, so findings point at the cell and show its lines.
"""

from __future__ import annotations

import linecache
import re
import sys
from collections.abc import Callable
from typing import Any

# IPython before 8 (and its plain terminal when the compiler map is unavailable) names cells <ipython-input-N-hash>
_INPUT_NAME = re.compile(r"^<ipython-input-(\d+)-[0-9a-f]+>$")


def cell_label(number: int) -> str:
    return f"In [{number}]"


def execution_count(shell: Any, path: str) -> int | None:
    """The execution count IPython compiled ``path`` for, or None when it is no cell of this shell."""
    numbers = getattr(getattr(shell, "compile", None), "_filename_map", None)  # IPython >= 8
    if isinstance(numbers, dict) and isinstance(numbers.get(path), int):
        return numbers[path]
    match = _INPUT_NAME.match(path)
    return int(match.group(1)) if match else None


def running_cell(shell: Any) -> int:
    """The execution count of the cell now running: that of the innermost frame that is a cell. (IPython 9 counts
    the cell before running it, IPython 8 after, so ``shell.execution_count`` alone cannot say.)"""
    frame = sys._getframe(1)
    while frame is not None:
        number = execution_count(shell, frame.f_code.co_filename)
        if number is not None:
            return number
        frame = frame.f_back
    return shell.execution_count


def cell_text(path: str) -> str | None:
    entry = linecache.cache.get(path)
    if not entry or len(entry) < 3 or not isinstance(entry[2], list):
        return None
    return "".join(entry[2])


def cell_sources(shell: Any) -> Callable[[str], tuple[str, str] | None]:
    """The capture's lookup for code with no file: a cell of ``shell`` -> (``In [N]``, its text)."""

    def lookup(path: str) -> tuple[str, str] | None:
        number = execution_count(shell, path)
        text = cell_text(path) if number is not None else None
        return (cell_label(number), text) if text is not None else None

    return lookup


def running_shell() -> Any:
    """The IPython shell this code runs in, or None (never imports IPython: a script that did not is not in one)."""
    ipython = sys.modules.get("IPython")
    get = getattr(ipython, "get_ipython", None)
    try:
        return get() if get is not None else None
    except Exception:
        return None
