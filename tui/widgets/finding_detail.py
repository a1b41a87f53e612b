"""Everything known about one finding: source, torch's own words, the stack, and the suggested fix."""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text
from tdiag.analyzer.model import Finding
from tdiag.tui.format import SOURCE_NOT_AVAILABLE, family_label, finding_site, severity_text
from tdiag.tui.widgets.rendered_pane import RenderedPane
from tdiag.tui.widgets.snippet import SYNTAX_THEME, CachedSyntax, source_snippet

CACHED_DETAILS = 256  # panes kept, so stepping back and forth over findings never rebuilds one


class FindingDetail(RenderedPane):
    """Rendered on demand for the selected finding only: thousands of findings never build their panes up front."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.finding: Finding | None = None
        self._cache: dict[int, RenderableType] = {}  # id(finding) -> pane; the Analysis outlives the widget

    def show(self, finding: Finding | None, sources: dict[str, str]) -> None:
        if finding is self.finding and self._key is not None:
            return
        self.finding = finding
        if finding is None:
            self.show_renderable(Text("No finding selected", style="dim"), key="none")
        else:
            self.show_renderable(self._pane(finding, sources), key=id(finding))

    def _pane(self, finding: Finding, sources: dict[str, str]) -> RenderableType:
        rendered = self._cache.get(id(finding))
        if rendered is None:
            if len(self._cache) >= CACHED_DETAILS:
                del self._cache[next(iter(self._cache))]  # the oldest
            rendered = self._cache[id(finding)] = render_finding(finding, sources)
        return rendered


def _heading(text: str) -> Text:
    return Text(f"\n{text}", style="bold underline")


def render_finding(finding: Finding, sources: dict[str, str]) -> RenderableType:
    evidence = finding.evidence or {}
    title = Text.assemble(
        (finding.code, "bold"), " ", (finding.name, "bold"), "  ", severity_text(finding.severity),
        ("  " + family_label(finding.family), "dim"),
    )
    parts: list[RenderableType] = [title, Text(finding.message)]
    where = Text.assemble(("at ", "dim"), finding_site(finding))
    if finding.function:
        where.append(f" in {finding.function}", style="dim")
    where.append(f"  ×{finding.occurrences}", style="bold")
    parts.append(where)
    source = sources.get(finding.path)
    parts.append(source_snippet(source, finding.line, finding.column, finding.end_column))
    if finding.library_frame is not None:
        lib = finding.library_frame
        parts.append(Text(f"broke inside {lib.path}:{lib.line} ({lib.function})", style="dim"))
    if finding.fix:
        parts.append(Text.assemble(("Fix: ", "bold green"), finding.fix))

    reason = evidence.get("reason")
    if reason or evidence.get("explanation") or evidence.get("hints"):
        parts.append(_heading("What torch said"))
        if reason:
            parts.append(Text.assemble(("reason: ", "bold"), str(reason)))
        if evidence.get("explanation"):
            parts.append(Text(str(evidence["explanation"])))
        for hint in evidence.get("hints") or []:
            parts.append(Text(f"• {hint}"))
    if evidence.get("guard") or evidence.get("expected") is not None:
        parts.append(_heading("Guard"))
        if evidence.get("guard"):
            parts.append(Text(str(evidence["guard"])))
        if evidence.get("expected") is not None or evidence.get("actual") is not None:
            parts.append(Text.assemble(("expected ", "dim"), (str(evidence.get("expected")), "green"),
                                       ("  actual ", "dim"), (str(evidence.get("actual")), "red")))
    stack = evidence.get("user_stack") or []
    if stack:
        parts.append(_heading("User stack (innermost last)"))
        parts.extend(_stack_frame(frame, sources) for frame in stack)
    if finding.gb_id or finding.gb_url:
        parts.append(_heading("Graph-break reference"))
        link = Text(finding.gb_id or "")
        if finding.gb_url:
            link.append(f"  {finding.gb_url}", style=f"underline link {finding.gb_url}")
        parts.append(link)
    if finding.suggestion is not None:
        parts.extend(_suggestion(finding))
    if finding.compile_ids:
        shown = ", ".join(finding.compile_ids[:12]) + (" …" if len(finding.compile_ids) > 12 else "")
        parts.append(Text.assemble(("\ncompile ids: ", "dim"), shown))
    if len(finding.ranks) > 1 or any(r != "0" for r in finding.ranks):
        per_rank = ", ".join(f"rank {r}: {n}" for r, n in sorted(finding.ranks.items(), key=lambda kv: kv[0]))
        parts.append(Text.assemble(("ranks: ", "dim"), per_rank))
    return Group(*parts)


def _stack_frame(frame: dict[str, Any], sources: dict[str, str]) -> Text:
    path, line = frame.get("path", "?"), frame.get("line")
    text = Text.assemble(f"  {path}:{line}", (f" in {frame.get('function', '?')}", "dim"))
    code = frame.get("code")
    if not code and path in sources and isinstance(line, int):
        lines = sources[path].splitlines()
        code = lines[line - 1].strip() if 0 < line <= len(lines) else None
    text.append("\n      " + code if code else f"\n      ({SOURCE_NOT_AVAILABLE})", style="" if code else "dim")
    return text


def _suggestion(finding: Finding) -> list[RenderableType]:
    suggestion = finding.suggestion
    assert suggestion is not None
    parts: list[RenderableType] = [_heading("Suggestion"), Text(suggestion.title, style="bold green")]
    if suggestion.why:
        parts.append(Text(suggestion.why))
    if suggestion.patch:
        parts.append(CachedSyntax(suggestion.patch.rstrip("\n"), "diff", theme=SYNTAX_THEME, word_wrap=False))
    elif suggestion.patch_note:
        parts.append(Text(f"no patch: {suggestion.patch_note}", style="dim"))
    for alternative in suggestion.alternatives:
        parts.append(Text(f"or: {alternative}", style="dim"))
    return parts
