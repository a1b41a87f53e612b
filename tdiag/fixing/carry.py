"""Step-time patches a round left for the next one, carried over when the next round's plan lacks them.

A round that changes what compiles leaves the step-time patches (CUDA graphs, the fused optimizer) to the round
after it (rounds.structure_first), which plans again from the record of the run it kept. That record is one
verification run: its runtime window can miss what the user's recorded run measured (BERT on the H200: the fused
AdamW planned in round 1, absent from round 2's plan, so never measured, "no patch left"). A patch deferred for the
order of rounds is not dropped for it: it is carried into the next round, its lines moved by what the kept round
changed, unless the new plan has a patch for the same finding or the kept edits replaced its lines.
"""

from __future__ import annotations

import dataclasses

from tdiag.fixing.plan import Edit, PlannedPatch
from tdiag.fixing.riders import patched_line


def carried(deferred: list[PlannedPatch], kept: list[PlannedPatch], planned: list[PlannedPatch]) -> list[PlannedPatch]:
    """The patches of ``deferred`` that ``planned`` has none for (by rule code and file), their edits moved over
    ``kept``'s edits."""
    have = {(code, p.path) for p in planned for code in p.codes}
    out = []
    for p in deferred:
        if any((code, p.path) in have for code in p.codes):
            continue
        kept_edits = [e for k in kept if k.path == p.path for e in k.edits]
        moved = [_moved(e, kept_edits) for e in p.edits]
        if all(e is not None for e in moved):
            out.append(dataclasses.replace(p, edits=moved, alternatives=[]))
    return out


def _moved(edit: Edit, kept: list[Edit]) -> Edit | None:
    """``edit`` on the text ``kept`` made (None where those edits replaced its lines)."""
    start = patched_line(edit.start + 1, kept)
    if start is None:
        return None
    if edit.end == edit.start:
        return Edit(start - 1, start - 1, edit.new)
    last = patched_line(edit.end, kept)
    if last is None or last - start != edit.end - 1 - edit.start:
        return None  # a kept edit inside its range
    return Edit(start - 1, last, edit.new)
