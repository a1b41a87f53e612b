"""torch's warnings of the run (``torch_warning`` events), each placed at the user's line, and the catalogue of the
ones tdiag has words for (torch_warnings.json).

torch issues most of its compile-time warnings from its own code while Dynamo traces the user's: the warning's own
location is inside torch. A warning's site is the user frame the capture chose, else the innermost user frame of
what Dynamo was tracing, else of the interpreter's stack; torch's location is kept as the library frame.
"""

from __future__ import annotations

import functools
import json
import re
from typing import Any

from tdiag.analyzer.model import Frame, GraphKey, Site
from tdiag.analyzer.paths import PathMapper
from tdiag.lean_dataclass import lean_dataclass


@lean_dataclass(frozen=True)
class WarningEntry:
    """One catalogue entry: torch's message it matches, the sentence of it quoted as torch's, and tdiag's words."""

    id: str
    source: str  # the file of torch that issues it
    match: str  # regex, searched in torch's message
    quote: str  # regex: the part of torch's message quoted as torch's words
    message: str
    fix: str
    shown_as_break: bool = False  # torch warns because the graph break it comes with is easy to miss
    # the statement tdiag writes for it after the file's imports (suggestions/warning_setting.py), where it has one
    patch: dict | None = None


@lean_dataclass
class TorchWarning:
    """One warning torch showed, placed at the user's line."""

    message: str
    category: str
    module: str  # the torch module that issued it
    site: Site
    library_frame: Frame | None  # torch's own location, where it is not the user's line
    compile_id: str | None
    rank: int | None
    during_compile: bool  # issued while Dynamo traced (torch's compile stack issuing it)
    entry: WarningEntry | None
    # Python attributes the warning outside torch's own files (torch's ``stacklevel`` points at its caller): torch
    # addresses the user. One attributed inside torch (a tensor's ``.grad`` Dynamo itself reads while tracing, warned
    # from torch/_dynamo/variables/builder.py) is torch's own business, nothing the user can act on
    addressed_to_user: bool = True
    # not printed by torch: what it would have printed on a cold compile, decided from the state its check reads
    # (analyzer/tf32_state.py: a compile cache served the run, and torch warns only while compiling anew)
    inferred: bool = False

    @property
    def graph_key(self) -> GraphKey | None:
        return GraphKey(self.rank, self.compile_id) if self.compile_id else None

    @property
    def from_compile_stack(self) -> bool:
        """Issued by torch.compile's own modules, or by any of torch's while a compile ran."""
        return self.during_compile or self.module.startswith(compile_modules())

    def words(self) -> dict[str, str]:
        """What an entry's message and fix may name: ``call``, the call torch underlined in the user's line
        (``scale_for(4)``), and ``callee``, the function it calls; general words where torch's text has none."""
        call = underlined_call(self.message)
        callee = call.split("(", 1)[0].strip() if call else ""
        return {"call": f"`{call}`" if call else "the cached call",
                "callee": f"`{callee}`" if callee else "the helper"}

    @property
    def attributed(self) -> str:
        """The quote as torch's words, and for an inferred warning when torch says them."""
        if self.inferred:
            return (f"torch's warning when Inductor compiles anew, not printed in this run (its compile cache served "
                    f"the graphs; the GPU and the matmul precision are as torch checks): \"{self.quote}\"")
        return f"torch's warning: \"{self.quote}\""

    @property
    def quote(self) -> str:
        """torch's own words for it: the entry's sentence of torch's message, else the message's first line."""
        if self.entry is not None:
            found = re.search(self.entry.quote, self.message)
            if found:
                return found.group(0)
        return self.message.strip().split("\n", 1)[0]


@functools.lru_cache(maxsize=1)
def _catalogue() -> dict[str, Any]:
    from importlib import resources

    return json.loads(resources.files("tdiag.analyzer").joinpath("torch_warnings.json").read_text(encoding="utf-8"))


def catalogue() -> tuple[WarningEntry, ...]:
    fields = set(WarningEntry.__dataclass_fields__)
    return tuple(WarningEntry(**{k: v for k, v in e.items() if k in fields}) for e in _catalogue()["entries"])


def compile_modules() -> tuple[str, ...]:
    """torch.compile's modules: a warning they issue is about compiling, whether tdiag has words for it or not."""
    return tuple(_catalogue()["compile_modules"])


def entry_for(message: str) -> WarningEntry | None:
    return next((e for e in catalogue() if re.search(e.match, message)), None)


def underlined_call(message: str) -> str | None:
    """The call torch's traceback in the message underlines (``return x * scale_for(4)`` over ``^^^^^^^^^^^^``):
    the underlined text when it is a call, None otherwise."""
    lines = message.split("\n")
    for source, carets in zip(lines, lines[1:]):
        marks = carets.strip()
        if marks and set(marks) <= set("^~") and source.strip():
            start = len(carets) - len(carets.lstrip())
            return _call_at_start(source[start:len(carets.rstrip())].strip())
    return None


def _call_at_start(text: str) -> str | None:
    """``scale_for(x.shape[0])`` of ``scale_for(x.shape[0])  # comment`` (torch may underline to the line's end)."""
    m = re.match(r"[\w.]+\(", text)
    if m is None:
        return None
    depth = 0
    for i in range(m.end() - 1, len(text)):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth == 0:
            return text[: i + 1]
    return None


def read(log: Any, paths: PathMapper) -> list[TorchWarning]:
    """Every ``torch_warning`` event of the log, in order."""
    out = []
    for ev in log.other:
        if ev.get("type") != "torch_warning" or not isinstance(ev.get("message"), str):
            continue
        site, library = _place(ev, paths)
        traced = _frames(ev.get("traced_stack"))
        own = _frame(ev.get("filename"), ev.get("lineno"), None)
        out.append(TorchWarning(
            message=ev["message"], category=str(ev.get("category") or "Warning"), module=str(ev.get("module") or ""),
            site=site, library_frame=library,
            compile_id=ev["compile_id"] if isinstance(ev.get("compile_id"), str) else None,
            rank=ev.get("rank"), during_compile=bool(traced) or isinstance(ev.get("compile_id"), str),
            entry=entry_for(ev["message"]),
            addressed_to_user=own is None or not _inside_torch(own[0]),
        ))
    return out


def _place(ev: dict[str, Any], paths: PathMapper) -> tuple[Site, Frame | None]:
    location = (ev.get("filename"), ev.get("lineno"))
    own = _frame(location[0], location[1], None)
    library = None
    if own is not None and (paths.is_library(own[0]) or paths.is_tool(own[0])):
        library = Frame(paths.display(own[0]), own[1], str(ev.get("module") or "?"), None, False)
    chosen = _frame(*(ev["user_frame"].get(k) for k in ("filename", "line", "name"))) \
        if isinstance(ev.get("user_frame"), dict) else None
    candidates = [chosen, own, *_frames(ev.get("traced_stack"))[::-1], *_frames(ev.get("stack"))[::-1]]
    for frame in candidates:
        if frame is not None and not paths.is_library(frame[0]) and not paths.is_tool(frame[0]):
            return Site(paths.display(frame[0]), frame[1], function=frame[2]), library if frame is not own else None
    if own is not None:  # nothing of the user's on record: say where torch warned
        return Site(paths.display(own[0]), own[1], function=None), None
    return Site("<unknown>", 0), None


def _inside_torch(filename: str) -> bool:
    path = filename.replace("\\", "/")
    return "/torch/" in path and ("site-packages/" in path or "dist-packages/" in path)


def _frames(value: Any) -> list[tuple[str, int, str | None]]:
    if not isinstance(value, list):
        return []
    return [f for item in value if isinstance(item, list) and len(item) >= 3 and (f := _frame(*item[:3])) is not None]


def _frame(filename: Any, line: Any, name: Any) -> tuple[str, int, str | None] | None:
    if not isinstance(filename, str) or not filename or not isinstance(line, int) or isinstance(line, bool):
        return None
    return filename, line, name if isinstance(name, str) else None


def stage(facts: Any) -> list[TorchWarning]:
    """The ``torch_warnings`` stage of analyzer/stages.py: the run's warnings, and the TF32 warning torch would have
    printed where its compile cache kept it silent (analyzer/tf32_state.py)."""
    seen = read(facts.log, facts.paths)
    return seen + inferred_tf32(facts.log, facts.analysis, seen)


def inferred_tf32(log: Any, analysis: Any, seen: list[TorchWarning]) -> list[TorchWarning]:
    """Inductor's TF32 warning, one per rank, where torch printed none but its check would have warned."""
    from tdiag.analyzer import tf32_state

    if any(w.entry is not None and w.entry.id == tf32_state.ENTRY for w in seen):
        return []
    return [TorchWarning(message=tf32_state.TEXT, category="UserWarning", module="torch._inductor.compile_fx",
                         site=site, library_frame=None, compile_id=compile_id, rank=rank, during_compile=True,
                         entry=entry_for(tf32_state.TEXT), inferred=True)
            for rank, compile_id, site in tf32_state.silent_sites(log, analysis)]
