"""Snapshot user source files into the record, so reports are complete elsewhere and never read arbitrary paths.

Only files under the project root are taken (the program's directory or ``--source-root``), never site-packages,
the interpreter's library or torch itself.
"""

from __future__ import annotations

import os
import sysconfig
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from tdiag import torch_events as te
from tdiag.lazy_regex import lazy_regex
from tdiag.record import RecordWriter, payload_hash

FILE_IN_TRACEBACK = lazy_regex(r'File "([^"]+)", line \d+')
MAX_SOURCE_BYTES = 2_000_000
_LIBRARY_MARKERS = ("site-packages", "dist-packages")


def library_roots() -> list[str]:
    paths = sysconfig.get_paths()  # works out every scheme path each call (~0.4 ms): once
    return sorted({os.path.realpath(paths[key]) for key in ("stdlib", "platstdlib", "purelib", "platlib") if key in paths})


# code with no file of its own that belongs to the user (a notebook cell): path -> (label, text), or None
VirtualSources = Callable[[str], "tuple[str, str] | None"]


class SourceSnapshotter:
    def __init__(self, writer: RecordWriter, root: Path, virtual: VirtualSources | None = None):
        self.writer = writer
        self.virtual = virtual
        self.root = os.path.realpath(root)
        self._seen: set[str] = set()
        self._library_roots = library_roots()

    def is_user_file(self, path: str) -> bool:
        real = os.path.realpath(path)
        if os.path.commonpath([real, self.root]) != self.root:
            return False
        if any(m in Path(real).parts for m in _LIBRARY_MARKERS):
            return False
        return not any(real.startswith(lib + os.sep) for lib in self._library_roots if lib != self.root)

    def offer(self, paths: Iterable[str]) -> None:
        for path in paths:
            if not path or path in self._seen:
                continue
            self._seen.add(path)
            if self.virtual is not None and self._offer_virtual(path):
                continue
            if path.startswith("<"):
                continue
            try:
                if not self.is_user_file(path) or not path.endswith(".py"):
                    continue
                with open(path, "rb") as fh:
                    data = fh.read(MAX_SOURCE_BYTES + 1)
            except (OSError, ValueError):
                continue
            if len(data) > MAX_SOURCE_BYTES:
                continue
            text = data.decode("utf-8", "replace")
            self.writer.write({"type": "source", "path": os.path.abspath(path), "sha": payload_hash(text), "text": text})

    def _offer_virtual(self, path: str) -> bool:
        try:
            found = self.virtual(path)
        except Exception:  # the lookup belongs to the host (IPython): it never breaks a capture
            return False
        if found is None:
            return False
        label, text = found
        self.writer.write({"type": "source", "path": path, "label": label, "sha": payload_hash(text), "text": text})
        return True

    def offer_text(self, text: str | None) -> None:
        if text:
            self.offer(FILE_IN_TRACEBACK.findall(text))


def offer_event_sources(sources: SourceSnapshotter, name: str, metadata: dict[str, Any], payload: str | None) -> None:
    """The user files a torch event names (an interned file name, a compiled frame's file, the files in a graph
    break, recompile or guard text): the live capture and the TORCH_TRACE import snapshot the same ones."""
    if name == te.STR:
        value = metadata.get(te.STR)
        if isinstance(value, (list, tuple)) and value:
            sources.offer([str(value[0])])
    elif name == te.COMPILATION_METRICS:
        metrics = metadata.get(name) or {}
        sources.offer([str(metrics.get("co_filename") or "")])
    elif name in te.SOURCE_EVENTS:
        sources.offer_text(payload)
