"""The `a` key on a finding with a patch: show the diff, and write it to the user's file only after `y`.

Writing goes through ``tdiag.fixing`` (the code behind ``tdiag fix --apply``): the same stale/uncommitted refusals,
the backup in the record's ``fix/`` folder, and ``tdiag fix RECORD --undo`` to put the file back.
"""

from __future__ import annotations

from pathlib import Path

from rich.syntax import Syntax
from rich.text import Text
from tdiag.analyzer.model import Analysis, Finding
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static


class ApplyPatchScreen(ModalScreen[str]):
    """Dismissed with the message to show: what was written (and how to undo it), or why nothing was."""

    BINDINGS = [
        Binding("y", "apply", "Apply"),
        Binding("n,escape,q", "cancel", "Cancel"),
    ]

    def __init__(self, analysis: Analysis, finding: Finding, record_dir: Path | None) -> None:
        super().__init__(id="apply-patch")
        self.analysis, self.finding, self.record_dir = analysis, finding, record_dir

    def compose(self) -> ComposeResult:
        suggestion = self.finding.suggestion
        with VerticalScroll(id="apply-box"):
            yield Static(Text(f"{self.finding.code}  {suggestion.title}", style="bold"))
            yield Static(Syntax(suggestion.patch.rstrip("\n"), "diff", theme="ansi_dark", background_color="default"))
            if self.record_dir is None:
                yield Static(Text("This analysis was not opened from a record: nothing can be written.", style="yellow"))
            else:
                yield Static(Text(f"Write this to {self.finding.path}?  y apply  ·  n cancel", style="bold"))

    def action_apply(self) -> None:
        if self.record_dir is None:
            self.dismiss("nothing written: no record to keep the backup in")
            return
        from tdiag.errors import TdiagError
        from tdiag.fixing.apply import apply_finding_patch

        try:
            applied = apply_finding_patch(self.record_dir, self.analysis, self.finding)
        except TdiagError as refused:
            self.dismiss(str(refused))
            return
        self.dismiss(f"patched {', '.join(applied.files)}; undo: tdiag fix {self.record_dir} --undo")

    def action_cancel(self) -> None:
        self.dismiss("")
