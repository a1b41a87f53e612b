"""One table of the strings the page's embedded data uses; records refer to them by index.

Large runs repeat the same paths, function names, guard texts, kernel names, explanations and hint lines thousands of
times; storing each once is what keeps the embedded data within the report's size budget.
"""

from __future__ import annotations


class StringTable:
    def __init__(self) -> None:
        self._index: dict[str, int] = {}
        self.values: list[str] = []

    def __call__(self, text: str | None) -> int | None:
        """Index of ``text``; ``None`` and ``""`` are stored as ``null`` (the page reads both as absent)."""
        if not text:
            return None
        index = self._index.get(text)
        if index is None:
            index = self._index[text] = len(self.values)
            self.values.append(text)
        return index

    def many(self, texts: list[str]) -> list[int | None]:
        return [self(t) for t in texts]
