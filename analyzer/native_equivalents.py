"""torch-native equivalents of functions Dynamo skips: what to call instead so the work stays in the graph.

Keyed by the skipped function's dotted name as ``SkippedCall.name`` gives it; the table is data, the fix
catalogue's skips section (analyzer/catalogue/skips.toml). Only equivalents that do the same thing belong there; the
note says what changes (the random stream: torch's generator, seeded by torch.manual_seed).
"""

from __future__ import annotations

from tdiag.lean_dataclass import lean_dataclass


@lean_dataclass
class Equivalent:
    instead: str  # what to write instead, as code
    note: str  # what differs
    # "module:function" (finding, ctx) -> unified diff writing the equivalent into the user's file (NoPatch when the
    # source does not allow it); None: the equivalent is advice only
    patch: str | None = None


def equivalent(name: str) -> Equivalent | None:
    """The catalogue's torch-native equivalent of a skipped function (catalogue/skips.toml), or None."""
    from tdiag.analyzer import catalogue

    entry = catalogue.for_skip(name)
    return None if entry is None else Equivalent(entry.instead, entry.note, entry.builder)
