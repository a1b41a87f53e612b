"""A copy of what the program prints to ``sys.stdout``, for ``tdiag run --vs-eager``'s comparison with eager.

The program's ``sys.stdout`` is replaced by a proxy that writes every string to the original first, then keeps a
copy (up to ``LIMIT`` characters). Every other attribute (``isatty``, ``fileno``, ``encoding``, ``flush``) is the
original's, so the program sees and prints exactly what it would without tdiag. Only ``--vs-eager`` installs it;
output written to file descriptor 1 directly (a subprocess, C code) is not in the copy.
"""

from __future__ import annotations

import sys
from typing import Any

LIMIT = 1_000_000


class StdoutCopy:
    def __init__(self, original: Any):
        self._original = original
        self._parts: list[str] = []
        self._size = 0
        self.truncated = False

    def write(self, text):
        written = self._original.write(text)
        if isinstance(text, str):
            if self._size + len(text) <= LIMIT:
                self._parts.append(text)
                self._size += len(text)
            else:
                self.truncated = True
        return written

    def writelines(self, lines):
        for line in lines:
            self.write(line)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._original, name)

    @property
    def text(self) -> str:
        return "".join(self._parts)


def install() -> StdoutCopy:
    copy = StdoutCopy(sys.stdout)
    sys.stdout = copy
    return copy


def remove(copy: StdoutCopy) -> None:
    """Put the original back, unless the program replaced ``sys.stdout`` itself meanwhile (then leave its own)."""
    if sys.stdout is copy:
        sys.stdout = copy._original
