"""Everything known about one finding: source, torch's own words, the stack, and the suggested fix."""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text
from tdiag.analyzer.model import Finding
from tdiag.reports.view import SOURCE_NOT_AVAILABLE, StackLine, finding_view
from tdiag.tui.format import severity_text
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
    view = finding_view(finding, sources)
    title = Text.assemble(
        (finding.code, "bold"), " ", (finding.name, "bold"), "  ", severity_text(finding.severity),
        ("  " + view.family_label, "dim"),
    )
    parts: list[RenderableType] = [title, Text(finding.message)]
    where = Text.assemble(("at ", "dim"), view.site)
    if finding.function:
        where.append(f" in {finding.function}", style="dim")
    where.append(f"  ×{finding.occurrences}", style="bold")
    parts.append(where)
    if view.cost:
        basis = "measured in the runtime window" if view.cost_basis == "measured" else "compile time over the run"
        parts.append(Text.assemble(("cost: ", "bold"), (view.cost, "bold"), (f"  {basis}", "dim")))
        if view.cost_caveat:
            parts.append(Text(f"  {view.cost_caveat}", style="dim"))
    source = sources.get(finding.path)
    parts.append(source_snippet(source, finding.line, finding.column, finding.end_column))
    if view.library_site:
        parts.append(Text(f"{view.library_label} {view.library_site}", style="dim"))
    if finding.fix:
        parts.append(Text.assemble(("Fix: ", "bold green"), finding.fix))

    if view.reason or view.explanation or view.hints:
        parts.append(_heading("What torch said"))
        if view.reason:
            parts.append(Text.assemble(("reason: ", "bold"), view.reason))
        if view.explanation:
            parts.append(Text(view.explanation))
        parts.extend(Text(f"• {hint}") for hint in view.hints)
    if view.guard or view.expected or view.actual:
        parts.append(_heading("Guard"))
        if view.guard:
            parts.append(Text(view.guard))
        if view.expected or view.actual:
            parts.append(Text.assemble(("expected ", "dim"), (view.expected, "green"),
                                       ("  actual ", "dim"), (view.actual, "red")))
    if view.facts:
        parts.append(_heading("Evidence"))
        parts.extend(Text.assemble((f"{label}: ", "bold"), value) for label, value in view.facts)
    if view.stack:
        parts.append(_heading("User stack (innermost last)"))
        parts.extend(_stack_line(line) for line in view.stack)
    if finding.gb_id or finding.gb_url:
        parts.append(_heading("Graph-break reference"))
        link = Text(finding.gb_id or "")
        if finding.gb_url:
            link.append(f"  {finding.gb_url}", style=f"underline link {finding.gb_url}")
        parts.append(link)
    if finding.suggestion is not None:
        parts.extend(_suggestion(finding))
    if view.graphs:
        shown = ", ".join(view.graphs[:12]) + (" …" if len(view.graphs) > 12 else "")
        parts.append(Text.assemble(("\ncompile ids: ", "dim"), shown))
    if view.ranks:
        parts.append(Text.assemble(("ranks: ", "dim"), ", ".join(f"rank {r}: {n}" for r, n in view.ranks)))
    return Group(*parts)


def _stack_line(line: StackLine) -> Text:
    text = Text.assemble(f"  {line.path}:{line.line}", (f" in {line.function}", "dim"))
    text.append("\n      " + line.code if line.code else f"\n      ({SOURCE_NOT_AVAILABLE})", style="" if line.code else "dim")
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
