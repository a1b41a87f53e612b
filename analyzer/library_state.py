"""A recompile guarded on state a library object keeps: the object as the user's code names it, the library that owns
it, and what changes it. torchmetrics' ``val_metric._update_count`` (``self._update_count += 1`` in the metric's
``update`` wrapper) and an optimizer's per-parameter state (empty before its first ``step()``) are the two shapes.

The user holds the object, never the attribute torch guards on: a fix is phrased on the object and the call the
user makes on it, never on the guard's expression.
"""

from __future__ import annotations

import re

from tdiag.lean_dataclass import lean_dataclass


@lean_dataclass
class LibraryState:
    """A guard's subject that a library keeps on the user's object and changes on its own (a metric's update count,
    an optimizer's state)."""

    holder: str  # the user's name for the object: "val_metric", "opt"
    attribute: str  # what the library keeps on it: "_update_count", "state"
    library: str | None  # "torchmetrics", "torch"
    changed_by: str | None  # the library line that changes it, as torch quoted it: "self._update_count += 1"
    optimizer_state: bool = False

    @property
    def expected_once(self) -> bool:
        """Filled once (an optimizer's state on its first step): one recompile, then stable."""
        return self.optimizer_state


_ATTRIBUTE = re.compile(r"^(?P<holder>[A-Za-z_]\w*)\.(?P<attr>_?\w+)$")


def library_state(failure, subject: str) -> LibraryState | None:
    """The library-owned state a guard failure reads (``subject`` as ``_recompiles.subject_name`` gives it), or None
    when the guard reads something of the user's own."""
    from tdiag.analyzer.library_causes import library_name

    if failure is None:
        return None
    if "per-parameter state" in subject:
        holder = subject.split(".state", 1)[0] if ".state" in subject else "the optimizer"
        return LibraryState(holder, "state", "torch", "the optimizer's step()", optimizer_state=True)
    m = _ATTRIBUTE.match(subject)
    if m is None or m.group("holder") == "self" or not failure.path or not failure.path.startswith("<"):
        return None  # the guard's line is the user's own: the user holds what it reads
    return LibraryState(m.group("holder"), m.group("attr"), library_name(failure.path), failure.source)
