"""Display paths: user files relative to the project root, library files as ``<site-packages>/...``."""

from __future__ import annotations

import os
import posixpath
import re
from collections.abc import Iterable

from tdiag.lazy_regex import lazy_regex

_LIBRARY_DIR = lazy_regex(r"^.*?[/\\](?:site-packages|dist-packages)[/\\]")
_STDLIB = lazy_regex(r"^.*?[/\\]lib[/\\]python3\.\d+[/\\](?!site-packages)")
RESUME_NAME = lazy_regex(r"^torch_dynamo_resume_in_(.+)_at_\d+$")
_TRACEBACK_FRAME = lazy_regex(r'^(\s*)File "([^"]+)", line \d+')


class PathMapper:
    def __init__(self, root: str | None, tool_paths: list[str] | None = None, cwd: str | None = None,
                 labels: dict[str, str] | None = None, live_files: Iterable[str] | None = None):
        """``labels``: code with no file of its own that is the user's (a notebook cell) -> its name (``In [3]``).

        ``live_files``: the files this run's own process compiled from (the record's source snapshots). Inductor's
        and AOTAutograd's caches key an entry by the graph, not by where its code lives, so a cache hit hands back
        generated code whose stack traces name the files of the run that filled the cache: another checkout of the
        same project, or the project before it moved. Such a path is read as the live file it must have been."""
        self.labels = dict(labels or {})
        self.root = (root or "").replace("\\", "/").rstrip("/")
        self.cwd = (cwd or "").replace("\\", "/").rstrip("/")
        self.tool_paths = [p.replace("\\", "/") for p in tool_paths or []]
        self.live_files = {f.replace("\\", "/") for f in live_files or () if f.startswith("/")}
        self._rebased: dict[str, str] = {}

    def is_tool(self, path: str) -> bool:
        """tdiag's own frames (and runpy's), which sit between the interpreter and the user's program."""
        p = self.absolute(path)
        return any(p == t or p.startswith(t.rstrip("/") + "/") for t in self.tool_paths)

    def without_tool_frames(self, text: str) -> str:
        """A traceback in torch's text without tdiag's frames: torch prints the whole Python stack of a break, which
        under ``tdiag run`` passes through tdiag's runner (a frame's source and caret lines go with it)."""
        if not self.tool_paths:
            return text
        kept, skipping, indent = [], False, 0
        for line in text.split("\n"):
            frame = _TRACEBACK_FRAME.match(line)
            if frame:
                indent, skipping = len(frame.group(1)), self.is_tool(frame.group(2))
            elif skipping and line.strip() and len(line) - len(line.lstrip()) > indent:
                continue
            else:
                skipping = False
            if not skipping:
                kept.append(line)
        return "\n".join(kept)

    def absolute(self, path: str) -> str:
        """Torch reports files as the interpreter saw them: relative to the working directory of the run."""
        p = path.replace("\\", "/")
        if self.cwd and p and not p.startswith(("/", "<")) and not re.match(r"^[A-Za-z]:/", p):
            return posixpath.normpath(self.cwd + "/" + p)
        # "<root>/../outside/x.py" (a sys.path entry with "..") is outside the root, not a user file under it
        p = posixpath.normpath(p) if p.startswith("/") and "/." in p else p
        return self._rebase(p) if self.live_files and p.startswith("/") else p

    def _rebase(self, path: str) -> str:
        """A path outside the root that no live file has -> the live file that shares the longest trailing part of
        it (at least the file name), when exactly one does; otherwise the path as it is."""
        if path in self.live_files or (self.root and path.startswith(self.root + "/")) or _LIBRARY_DIR.match(path) \
                or _STDLIB.match(path):
            return path
        if path not in self._rebased:
            parts = path.split("/")
            best, best_len = [], 0
            for live in self.live_files:
                common = _common_tail(parts, live.split("/"))
                if common > best_len:
                    best, best_len = [live], common
                elif common == best_len and common:
                    best.append(live)
            self._rebased[path] = best[0] if len(best) == 1 else path
        return self._rebased[path]

    def is_library(self, path: str) -> bool:
        if path in self.labels:
            return False
        p = self.absolute(path)
        if _LIBRARY_DIR.match(p) or _STDLIB.match(p) or p.startswith("<"):
            return True
        return bool(self.root) and p.startswith("/") and not (p == self.root or p.startswith(self.root + "/"))

    def guard_comment_path(self, path: str) -> str:
        """A file as torch's guard comments name it, shortened below a sys.path entry
        (``transformers/models/bert/modeling_bert.py``): the user's file where the run's directory has it, else a
        library's."""
        if path.startswith(("/", "<")) or os.path.exists(self.absolute(path)):
            return self.display(path)
        tail = "/" + path.replace("\\", "/")
        for candidate in (self.root + tail, *sorted(self.live_files)):
            if candidate.endswith(tail) and not _LIBRARY_DIR.match(candidate) and (
                    candidate in self.live_files or os.path.exists(candidate)):
                return self.display(candidate)
        return "<site-packages>/" + path

    def display(self, path: str | None) -> str:
        if not path:
            return "<unknown>"
        if path in self.labels:
            return self.labels[path]
        p = self.absolute(path)
        m = _LIBRARY_DIR.match(p)
        if m:
            return "<site-packages>/" + p[m.end():]
        m = _STDLIB.match(p)
        if m:
            return "<stdlib>/" + p[m.end():]
        if self.root and p.startswith(self.root + "/"):
            return posixpath.normpath(p[len(self.root) + 1 :])
        return p


def _common_tail(a: list[str], b: list[str]) -> int:
    n = 0
    while n < min(len(a), len(b)) - 1 and a[-1 - n] == b[-1 - n]:
        n += 1
    return n


def user_function_name(name: str | None) -> str | None:
    """``torch_dynamo_resume_in_forward_at_27`` is the user's ``forward``."""
    if not name:
        return name
    m = RESUME_NAME.match(name)
    return m.group(1) if m else name


def is_library_display(path: str | None) -> bool:
    """A display path that is not a file of the user's project: ``<site-packages>/...``, ``<stdlib>/...``,
    ``<string>`` (generated code such as a dataclass ``__init__``), ``<frozen ...>``. Absolute paths are kept as
    they are: outside the root of a run, or any file of an import without a source root, they may be the user's."""
    return not path or path.startswith("<")
