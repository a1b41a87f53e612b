"""Everything known about one finding: source, torch's own words, the stack, and the suggested fix."""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text
from tdiag.analyzer.model import Finding
from tdiag.reports.view import SOURCE_NOT_AVAILABLE, StackLine, finding_view
from tdiag.tui.format import expected_actual, severity_text
from tdiag.tui.widgets.rendered_pane import RenderedPane
from tdiag.tui.widgets.snippet import SYNTAX_THEME, CachedSyntax, source_snippet
from tdiag.analyzer.fix_status import label as fix_label

CACHED_DETAILS = 256  # panes kept, so stepping back and forth over findings never rebuilds one


class FindingDetail(RenderedPane):
    """Rendered on demand for the selected finding only: thousands of findings never build their panes up front."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.finding: Finding | None = None
        self.caveats = False  # what a cost leaves out, folded to one line until `c` unfolds it
        self._cache: dict[tuple[int, bool], RenderableType] = {}  # (id(finding), caveats) -> pane

    def show(self, finding: Finding | None, sources: dict[str, str]) -> None:
        key = (id(finding), self.caveats)
        if finding is self.finding and self._key == key:
            return
        self.finding = finding
        if finding is None:
            self.show_renderable(Text("No finding selected", style="dim"), key="none")
        else:
            self.show_renderable(self._pane(finding, sources), key=key)

    def toggle_caveats(self, sources: dict[str, str]) -> None:
        self.caveats = not self.caveats
        self.show(self.finding, sources)

    def _pane(self, finding: Finding, sources: dict[str, str]) -> RenderableType:
        key = (id(finding), self.caveats)
        rendered = self._cache.get(key)
        if rendered is None:
            if len(self._cache) >= CACHED_DETAILS:
                del self._cache[next(iter(self._cache))]  # the oldest
            rendered = self._cache[key] = render_finding(finding, sources, caveats=self.caveats)
        return rendered


def _heading(text: str) -> Text:
    return Text(f"\n{text}", style="bold underline")


def render_finding(finding: Finding, sources: dict[str, str], caveats: bool = True) -> RenderableType:
    """``caveats`` False folds what the cost leaves out into one short line (`c` unfolds it), so the Fix line stays
    in view in an 80x24 terminal."""
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
    if finding.fix:  # right under the site: in an 80x24 terminal the pane shows ~8 lines, the Fix among them
        parts.append(Text.assemble((fix_label("Fix", finding) + ": ", "bold green"), finding.fix))
    if view.cost:
        basis = "measured in the runtime window" if view.cost_basis == "measured" else "compile time over the run"
        parts.append(Text.assemble(("cost: ", "bold"), (view.cost, "bold"), (f"  {basis}", "dim")))
        if view.cost_caveat and caveats:
            parts.append(Text(f"  {view.cost_caveat}", style="dim"))
        elif view.cost_caveat:
            what = "a lower bound" if finding.cost is not None and finding.cost.lower_bound else "compile time only"
            parts.append(Text(f"  {what} (c: what the cost leaves out)", style="dim"))
    source = sources.get(finding.path)
    parts.append(source_snippet(source, finding.line, finding.column, finding.end_column))
    if view.library_site:
        parts.append(Text(f"{view.library_label} {view.library_site}", style="dim"))

    if view.reason or view.explanation or view.hints:
        parts.append(_heading("What torch said"))
        if view.reason:
            parts.append(Text.assemble(("reason: ", "bold"), view.reason))
        if view.explanation:
            parts.append(Text(view.explanation))
        parts.extend(Text(f"• {hint}") for hint in view.hints)
    if view.guard or expected_actual(view.expected, view.actual) is not None:
        parts.append(_heading("Guard"))
        if view.guard:
            parts.append(Text(view.guard))
        values = expected_actual(view.expected, view.actual)
        if values is not None:
            parts.append(values)
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
